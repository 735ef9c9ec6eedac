// One budget of failed password checks shared by every place that checks a password: POST /auth,
// the /login page, the catalogue's HTTP Basic and the OAuth password grant. The strict limit is per
// account and client address together, so a stranger's failures cannot lock the owner out elsewhere;
// a much higher per-account limit still bounds guessing spread over many addresses.
import { ensureAllowed, record, type Hit, type LimitRule } from '../common/rate-limit';
import type { Config } from '../config';

const FIFTEEN_MINUTES = 15 * 60_000;

export interface SignInLimits {
  readonly perAccountAndAddress: LimitRule;
  readonly perAccount: LimitRule;
  readonly perAddress: LimitRule;
}

/** The rules from configuration, or null when rate limits are off. */
export function signInLimits(config: Config): SignInLimits | null {
  if (!config.rateLimits) return null;
  const rule = (name: string, limit: number): LimitRule => ({ name, limit, windowMs: FIFTEEN_MINUTES });
  return {
    perAccountAndAddress: rule('sign-in:account+address', config.limits.signInPerAccountAndAddress),
    perAccount: rule('sign-in:account', config.limits.signInPerAccount),
    perAddress: rule('sign-in:address', config.limits.signInPerAddress),
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

/** Throws TooManyRequestsError when the attempt is over budget; writes nothing. */
export async function ensureAttemptAllowed(limits: SignInLimits | null, attempt: Attempt): Promise<void> {
  if (limits) await ensureAllowed(hitsOf(limits, attempt));
}

export async function recordFailure(limits: SignInLimits | null, attempt: Attempt): Promise<void> {
  if (limits) await record(hitsOf(limits, attempt));
}
