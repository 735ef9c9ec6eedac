// One budget of failed password checks shared by every place that checks a password: POST /auth,
// the /login page, the catalogue's HTTP Basic and the OAuth password grant. The strict limit is per
// account and client address together, so a stranger's failures cannot lock the owner out elsewhere;
// a much higher per-account limit still bounds guessing spread over many addresses.
import { normalizeEmail } from '../common/email';
import {
  ensureAllowed,
  forgetHits,
  limitRule,
  releaseHits,
  reserve,
  useOnce,
  type Hit,
  type SingleUse,
  type LimitRule,
  type Reservation,
} from '../common/rate-limit';
import { SignalledCache } from '../common/signalled-cache';
import type { Config } from '../config';
import { changeSignal } from '../db/change-signals';
import { FACTOR_RULES } from '../factors/factors.service';

/** Raised after every recorded failure, so no instance goes on trusting an "allowed" it remembers. */
const failureRecorded = changeSignal('sign-in-failures');

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
  return {
    perAccountAndAddress: limitRule('sign-in:account+address', config.limits.signInPerAccountAndAddress),
    perAccount: limitRule('sign-in:account', config.limits.signInPerAccount),
    perAddress: limitRule('sign-in:address', config.limits.signInPerAddress),
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
 * For a password already known to be right (HTTP Basic's remembered pairs), which cannot fail: throws
 * TooManyRequestsError when the budget is spent (then even the right password is refused), writes
 * nothing. A failure recorded on another instance is taken into account within a second, here at once.
 */
export async function ensureAttemptAllowed(limits: SignInLimits | null, attempt: Attempt): Promise<void> {
  if (!limits) return;
  const key = JSON.stringify([attempt.email, attempt.address]);
  const { value: allowed, generation } = await limits.allowed.get(key);
  if (allowed) return;
  await ensureAllowed(hitsOf(limits, attempt));
  limits.allowed.set(key, true, generation);
}

/**
 * Lifts the lock failed passwords put on an account (from every address), for `npm run unlock`.
 * The address-wide count stays: it is about the address, not the account. Returns the failures forgotten.
 */
export async function forgetFailuresOf(config: Config, email: string): Promise<number> {
  const limits = signInLimits({ ...config, rateLimits: true })!;
  const account = normalizeEmail(email);
  // The keys hitsOf gives: `email|address` for the pair, `email` alone for the account (one hit per failure).
  await forgetHits(limits.perAccountAndAddress, [], [`${account}|`]);
  return forgetHits(limits.perAccount, [account]);
}

/** What becomes of an attempt's reserved failure once the password has been checked. */
export interface AttemptOutcome {
  /** The reserved hits' ids: held on by a sign-in whose second factor is still to come. */
  readonly held: readonly string[];
  /** For each single-use mark given with the attempt: whether this attempt used it first. */
  readonly fresh: readonly boolean[];
  /** The password was wrong: the reserved failure stays, and every instance forgets its "allowed" pairs. */
  failed(): Promise<void>;
  /** The password was right, or was never checked: the reservation is taken back, with `also` (held ones). */
  withdraw(also?: readonly string[]): Promise<void>;
}

const unlimited = (fresh: readonly boolean[]): AttemptOutcome => ({
  held: [],
  fresh,
  failed: async () => undefined,
  withdraw: (also = []) => releaseHits(also),
});

/** The second factor's own daily budget per account (FACTOR_RULES.wrongFactorsPerAccountPerDay). */
const WRONG_FACTORS_PER_DAY: LimitRule = {
  name: 'second-factor:account:day',
  limit: FACTOR_RULES.wrongFactorsPerAccountPerDay,
  windowMs: 24 * 3600_000,
};

/** The daily budget's hit for an account (its id): added to a second factor's attempt. */
export const secondFactorDay = (userId: string): Hit => ({ rule: WRONG_FACTORS_PER_DAY, key: userId });

/**
 * Counts the attempt as a failure before the password is checked (common/rate-limit.ts `reserve`), so
 * a burst of attempts sent at once gets no more checks than the budget, on one instance or many.
 * Throws TooManyRequestsError, writing nothing, when the budget is spent. Single-use marks (`once`, an
 * authenticator-app code's time step) are written in the same command.
 */
export async function reserveAttempt(
  limits: SignInLimits | null,
  attempt: Attempt,
  also: Hit[] = [],
  once: readonly SingleUse[] = [],
  /** Hits an earlier step holds (the password's, for the second step): their slots are not tried. */
  held: readonly string[] = [],
): Promise<AttemptOutcome> {
  if (!limits) return unlimited(once.length > 0 ? await useOnce(once) : []);
  const reservation: Reservation = await reserve([...hitsOf(limits, attempt), ...also], new Date(), once, held);
  return {
    held: reservation.ids,
    fresh: reservation.fresh,
    failed: () => failureRecorded.raise(),
    withdraw: (also) => reservation.release(also),
  };
}
