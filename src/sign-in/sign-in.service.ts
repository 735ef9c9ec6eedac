// The one password check of the server, built once by createApp and handed to every surface that
// checks a password: POST /auth, the /login page, the catalogue's HTTP Basic and the OAuth password
// grant. It holds the sign-in budget (common to all of them), the cache of recent verifications
// (used by HTTP Basic, which sends the same password on every request) and argon2. Over budget it
// throws TooManyRequestsError, which carries only the wait: each surface words the 429 its own way.
import { normalizeEmail } from '../common/email';
import { TooManyRequestsError, type SingleUse } from '../common/rate-limit';
import { signInFailures } from '../common/metrics';
import { hashPassword, needsRehash, verifyPassword } from '../common/passwords';
import type { Config } from '../config';
import * as usersService from '../users/users.service';
import { ensureAttemptAllowed, reserveAttempt, secondFactorDay, signInLimits } from './sign-in-limits';

/** Lifts the lock failed passwords put on an account (`npm run users -- unlock`, the console's Unlock). */
export { forgetFailuresOf } from './sign-in-limits';
import { VerifiedCredentialsCache } from './verified-credentials.cache';

/** A password check: the email as typed, the password, and the client address it came from. */
export interface PasswordAttempt {
  email: string;
  password: string;
  address: string;
}

/** The id of the user with this email and password, or null. */
export type PasswordVerifier = (attempt: PasswordAttempt) => Promise<string | null>;

/** Who a right password belongs to, and whether their account may have a second factor (users.model.ts `secondFactor`). */
export interface VerifiedPerson {
  userId: string;
  secondFactor?: boolean;
  /** The kinds of second factor, when the record says (users.model.ts `factorKinds`). */
  factorKinds?: { totp: boolean; passkeys: boolean };
  /**
   * The attempt's budget hits, still counted as a failure while a second factor may be owed (the
   * account may have one): taken back with the second factor's own once it is right, or by the journey
   * when none is owed after all; left to expire when it never comes.
   */
  held?: readonly string[];
}

/** The sign-in page's check: the person, or null. */
export type PersonVerifier = (attempt: PasswordAttempt) => Promise<VerifiedPerson | null>;

/**
 * A second factor's check (a one-time code, a recovery code) for an account, from an address: true
 * when it was right. Wrong ones count against the same budget as wrong passwords.
 */
export type FactorVerifier = (
  account: { userId: string; email?: string; address: string },
  /** Runs once the budget has room; `fresh` says of each of `once` whether this attempt used it first. */
  check: (fresh: readonly boolean[]) => Promise<boolean>,
  /** The password's budget hits the sign-in held on (VerifiedPerson `held`): taken back with this attempt's when it is right. */
  held?: readonly string[],
  /**
   * Single-use marks the check relies on (the time step of an authenticator-app code already found
   * right): written with the budget's hits, in one command, and kept only when the budget has room.
   */
  once?: readonly SingleUse[],
) => Promise<boolean>;

export interface SignIn {
  /** For people typing a password: every check runs argon2. */
  verify: PasswordVerifier;
  /** The same for the sign-in journey, with the account's second-factor hint from the same read. */
  verifyPerson: PersonVerifier;
  verifyFactor: FactorVerifier;
  /** For HTTP Basic: a pair verified recently is answered from memory (CREDENTIAL_CACHE). */
  verifyRepeated: PasswordVerifier;
}

/** A wrong password for an existing account (its security activity); never awaited by the check. */
export type SignInFailedHook = (userId: string, address: string) => Promise<void>;

export function createSignIn(
  config: Config,
  users: usersService.UserStore,
  hooks: {
    /** A wrong password for an existing account (its security activity). */
    failed?: SignInFailedHook;
    /** Wrong second factors ran into their budget: the owner hears (account.service.ts `factorGuessing`). */
    guessing?: (userId: string) => Promise<void>;
  } = {},
): SignIn {
  const { failed, guessing } = hooks;
  const limits = signInLimits(config);
  const cache = config.credentialCache ? new VerifiedCredentialsCache() : undefined;

  /**
   * Over the failed-attempt budget it throws before looking (even a right password is refused then).
   * Each attempt is counted as a failure before argon2 runs and taken back when the password is right,
   * so concurrent attempts cannot outrun the budget. A pair the cache remembers as right only checks
   * the budget. Without a cache hit the password is verified even for an unknown email, so both
   * failures take the same time; a hash made with older parameters is upgraded after a success.
   */
  async function check(
    attempt: PasswordAttempt,
    remembered: VerifiedCredentialsCache | undefined,
    holdForSecondFactor = false,
  ): Promise<VerifiedPerson | null> {
    const email = normalizeEmail(attempt.email);
    const { password } = attempt;
    const budget = { email, address: attempt.address };
    const cached = await remembered?.lookup(email, password);
    if (cached?.userId) {
      await ensureAttemptAllowed(limits, budget);
      return { userId: cached.userId };
    }
    const outcome = await reserveAttempt(limits, budget);
    let found: usersService.SignInRecord | null;
    let verified: boolean;
    try {
      found = await users.findForSignIn(email);
      verified = await verifyPassword(found?.password, password, attempt.address);
    } catch (err) {
      // Not checked after all (the hashing queue was full, the database failed): not a failure.
      await outcome.withdraw();
      throw err;
    }
    const storedHash = found?.password;
    if (!verified || !found || storedHash === undefined) {
      signInFailures.inc();
      await outcome.failed();
      // Recorded on the event loop's next turn, once the refusal is on its way: a known account's
      // failure must take no longer to answer than an unknown one's.
      if (found && failed) setImmediate(() => void failed(found.user._id, attempt.address));
      return null;
    }
    const credentials = found.user;
    // A sign-in that may owe a second factor holds its hits until that comes: a right password
    // alone is not yet a sign-in, and holding costs no write now (the release goes with the factor's).
    const hold = holdForSecondFactor && credentials.secondFactor !== false && outcome.held.length > 0;
    if (!hold) await outcome.withdraw();
    if (needsRehash(storedHash)) await usersService.upgradePasswordHash(credentials._id, await hashPassword(password, attempt.address));
    if (cached) remembered!.remember(email, password, credentials._id, cached.generation);
    return {
      userId: credentials._id,
      secondFactor: credentials.secondFactor,
      factorKinds: credentials.factorKinds,
      ...(hold && { held: outcome.held }),
    };
  }
  const idOf = (person: VerifiedPerson | null) => person?.userId ?? null;

  return {
    verify: (attempt) => check(attempt, undefined).then(idOf),
    verifyPerson: (attempt) => check(attempt, undefined, true),
    async verifyFactor(account, checkFactor, held = [], once = []) {
      // The account's budget key: its email, as for passwords, or its id when it has none (GitHub).
      // The sign-in budget, and the second factor's own daily one, which guessing codes runs into.
      const attempt = { email: account.email ?? `user:${account.userId}`, address: account.address };
      let outcome: Awaited<ReturnType<typeof reserveAttempt>>;
      try {
        outcome = await reserveAttempt(limits, attempt, [secondFactorDay(account.userId)], once, held);
      } catch (err) {
        // The refusal is the surface's to word; the owner hears that someone ran into the budget.
        if (err instanceof TooManyRequestsError && guessing) await guessing(account.userId);
        throw err;
      }
      let right: boolean;
      try {
        right = await checkFactor(outcome.fresh);
      } catch (err) {
        await outcome.withdraw();
        throw err;
      }
      if (right) await outcome.withdraw(held);
      else {
        signInFailures.inc();
        await outcome.failed();
      }
      return right;
    },
    verifyRepeated: (attempt) => check(attempt, cache).then(idOf),
  };
}
