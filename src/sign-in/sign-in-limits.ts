// One budget of failed password checks shared by every place that checks a password: POST /auth,
// the /login page, the catalogue's HTTP Basic and the OAuth password grant. The strict limit is per
// account and client address together, so a stranger's failures cannot lock the owner out elsewhere;
// a much higher per-account limit still bounds guessing spread over many addresses.
import { ensureAllowed, record, type Hit, type LimitRule } from '../common/rate-limit';
import { SignalledCache } from '../common/signalled-cache';
import type { Config } from '../config';
import { changeSignal } from '../db/change-signals';

/** Raised after every recorded failure, so no instance goes on trusting an "allowed" it remembers. */
const failureRecorded = changeSignal('sign-in-failures');

const FIFTEEN_MINUTES = 15 * 60_000;

export interface SignInLimits {
  readonly perAccountAndAddress: LimitRule;
  readonly perAccount: LimitRule;
  readonly perAddress: LimitRule;
  /**
   * Account and address pairs found within budget since the last failure anywhere: a budget only
   * shrinks when a failure is recorded, so a right password repeated (HTTP Basic) costs no reads.
   */
  readonly allowed: SignalledCache<true>;
}

/** The rules from configuration, or null when rate limits are off. */
export function signInLimits(config: Config): SignInLimits | null {
  if (!config.rateLimits) return null;
  const rule = (name: string, limit: number): LimitRule => ({ name, limit, windowMs: FIFTEEN_MINUTES });
  return {
    perAccountAndAddress: rule('sign-in:account+address', config.limits.signInPerAccountAndAddress),
    perAccount: rule('sign-in:account', config.limits.signInPerAccount),
    perAddress: rule('sign-in:address', config.limits.signInPerAddress),
    allowed: new SignalledCache(failureRecorded, { maxEntries: 10_000, ttlMs: 60_000 }),
  };
}

/** Who is trying: the normalised email and the client address. */
export interface Attempt {
  email: string;
  address: string;
}

function hitsOf(limits: SignInLimits, { email, address }: Attempt): Hit[] {
  return [
    { rule: limits.perAccountAndAddress, key: `${email}|${address}` },
    { rule: limits.perAccount, key: email },
    { rule: limits.perAddress, key: address },
  ];
}

/**
 * Throws TooManyRequestsError when the attempt is over budget; writes nothing. A failure recorded on
 * another instance is taken into account within a second, one recorded here at once.
 */
export async function ensureAttemptAllowed(limits: SignInLimits | null, attempt: Attempt): Promise<void> {
  if (!limits) return;
  const key = JSON.stringify([attempt.email, attempt.address]);
  const { value: allowed, generation } = await limits.allowed.get(key);
  if (allowed) return;
  await ensureAllowed(hitsOf(limits, attempt));
  limits.allowed.set(key, true, generation);
}

export async function recordFailure(limits: SignInLimits | null, attempt: Attempt): Promise<void> {
  if (!limits) return;
  await record(hitsOf(limits, attempt));
  await failureRecorded.raise();
}
