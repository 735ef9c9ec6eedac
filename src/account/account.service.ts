// The flows people run themselves (docs/accounts.md): sign-up with a verification mail, verifying
// the email, a forgotten password and its reset, changing the password, and the profile. Mail goes
// through the mailer's queue, never holding up the page that asked for it.
import type { Logger } from 'pino';
import { normalizeEmail } from '../common/email';
import { limitRule, reserve } from '../common/rate-limit';
import type { Config } from '../config';
import type { Mailer } from '../mail/mailer';
import type { PasswordVerifier } from '../sign-in/sign-in.service';
import * as signUpService from '../users/sign-up.service';
import * as usersService from '../users/users.service';
import { displayName, type UserRecord } from '../users/users.types';
import * as links from './account-links.service';
import type { DeadLink } from './account-links.service';
import { factorChangeMail, factorGuessingMail, resetMail, verificationMail } from './account.mail';
import { FACTOR_RULES } from '../factors/factors.service';
import { ACCOUNT_RULES, LINK_LIFETIME_MS } from './account.rules';
import type { ActivityLog } from './activity.service';

/** Where a request came from: the activity log's address and browser. */
export interface Origin {
  /** The address as a person reads it, for the activity log (common/rate-limit.ts displayAddress). */
  shown: string;
  address: string;
  device: string;
}

/** One mail a day about wrong second factors, whatever the budget's pace. */
const GUESSING_ALERT = { name: 'factor-guessing-mail:account', limit: 1, windowMs: 24 * 3600_000 };
const RESEND = limitRule('verify-resend:account', ACCOUNT_RULES.verificationResendPerAccount);
const RESET_BY_ADDRESS = limitRule('reset:address', ACCOUNT_RULES.resetRequestsPerAddress);
const RESET_BY_EMAIL = limitRule('reset:email', ACCOUNT_RULES.resetRequestsPerEmail);

export function createAccounts(
  config: Config,
  mailer: Mailer,
  activity: ActivityLog,
  logger: Logger,
  endAccess: usersService.AccessEndedHook,
  users: usersService.UserStore,
) {
  const site = new URL(config.publicUrl).host;
  const linkTo = (path: string, token: string) => `${config.publicUrl}${path}?token=${token}`;
  const limited = async (hits: Parameters<typeof reserve>[0]) => {
    if (config.rateLimits) await reserve(hits);
  };

  async function sendVerification(user: UserRecord): Promise<void> {
    if (!user.email || !mailer.available) return;
    const token = await links.issue('verify-email', { ...user, email: user.email });
    const lifetime = LINK_LIFETIME_MS['verify-email'];
    mailer.send(verificationMail(user.email, displayName(user), linkTo('/verify-email', token), lifetime, site));
  }

  /** Sets the new password: every earlier session and token of the account ends (docs/security.md). */
  async function setPassword(user: UserRecord, password: string, origin: Origin, kind: 'password-changed' | 'password-reset') {
    await usersService.update(user, { password }, null, endAccess, origin.address);
    await activity.record(user._id, kind, { address: origin.shown, detail: origin.device });
  }

  return {
    /** Mail flows work (false in production without SMTP_URL). */
    mailAvailable: mailer.available,

    /** The sign-up rules' message for an email typed on the forgotten-password form, or null. */
    emailProblem: (email: string) => signUpService.emailProblem(email),

    /** POST /users's rules and messages; on success the new account's id, and a verification mail is on its way. */
    async signUp(fields: signUpService.SignUpFields, origin: Origin): Promise<{ problems: string[] } | { userId: string }> {
      const problems = await signUpService.signUpProblems(fields);
      if (problems.length > 0) return { problems };
      const email = normalizeEmail(fields.email);
      let userId: string;
      try {
        userId = await usersService.create(
          { email, password: fields.password, firstName: fields.firstName || undefined, lastName: fields.lastName || undefined },
          origin.address,
        );
      } catch (err) {
        if (err instanceof usersService.EmailTakenError) return { problems: [usersService.EMAIL_TAKEN] };
        throw err;
      }
      await activity.record(userId, 'signed-up', { address: origin.shown, detail: origin.device });
      const user = await usersService.findById(userId);
      if (user) await sendVerification(user);
      return { userId };
    },

    /** Another verification mail, a few per 15 minutes (TooManyRequestsError past that). */
    async resendVerification(user: UserRecord): Promise<void> {
      if (user.emailVerified || !user.email) return;
      await limited([{ rule: RESEND, key: user._id }]);
      await sendVerification(user);
    },

    /** The verification link was opened: the email is verified, or why the link is dead. */
    async verifyEmail(token: string | undefined, origin: Origin): Promise<{ verified: string } | { dead: DeadLink }> {
      const found = await links.check('verify-email', token);
      if ('dead' in found) return found;
      if (!(await links.useUp(found.link))) return { dead: 'invalid' };
      if (await usersService.markEmailVerified(found.user._id, found.link.email)) {
        await activity.record(found.user._id, 'email-verified', { address: origin.shown, detail: found.link.email });
      }
      return { verified: found.link.email };
    },

    /**
     * A reset link for this email, if an account has it: the caller answers at once, the same way for
     * any address (the lookup and the mail run after). Limited per address and per email alike.
     */
    async requestReset(typedEmail: string, origin: Origin): Promise<void> {
      const email = normalizeEmail(typedEmail);
      await limited([
        { rule: RESET_BY_ADDRESS, key: origin.address },
        { rule: RESET_BY_EMAIL, key: email },
      ]);
      const mailReset = async () => {
        const user = await usersService.findByEmail(email);
        if (!usersService.isActive(user) || !user.email) return;
        const token = await links.issue('reset-password', { ...user, email: user.email });
        mailer.send(resetMail(user.email, linkTo('/reset-password', token), LINK_LIFETIME_MS['reset-password'], site));
        await activity.record(user._id, 'password-reset-requested', { address: origin.shown, detail: origin.device });
      };
      void mailReset().catch((err: unknown) => logger.warn({ err }, 'password reset mail not prepared'));
    },

    /** Whether the reset link can be used (the page shows the form, or why not). */
    async checkReset(token: string | undefined): Promise<{ token: string } | { dead: DeadLink }> {
      if (token === undefined) return { dead: 'invalid' };
      const found = await links.check('reset-password', token);
      return 'dead' in found ? found : { token };
    },

    /** Sets the new password from a reset link: the account's id, the password's problem, or why the link is dead. */
    async resetPassword(
      token: string | undefined,
      password: string,
      origin: Origin,
    ): Promise<{ userId: string; wasUnverified: boolean } | { problem: string } | { dead: DeadLink }> {
      const found = await links.check('reset-password', token);
      if ('dead' in found) return found;
      const problem = await signUpService.passwordProblem(password);
      if (problem) return { problem };
      if (!(await links.useUp(found.link))) return { dead: 'invalid' };
      await setPassword(found.user, password, origin, 'password-reset');
      // The link reached the mailbox: its owner is the account's, whoever signed up with the address.
      const wasUnverified = found.user.emailVerified !== true;
      if (wasUnverified && (await usersService.markEmailVerified(found.user._id, found.link.email))) {
        await activity.record(found.user._id, 'email-verified', { address: origin.shown, detail: found.link.email });
      }
      return { userId: found.user._id, wasUnverified };
    },

    /** The account page's change: the current password first (through the sign-in budget), then the new one's rule. */
    async changePassword(
      user: UserRecord,
      current: string,
      password: string,
      origin: Origin,
      verifyPassword: PasswordVerifier,
    ): Promise<{ problem: string } | { changed: true }> {
      const verified = user.email ? await verifyPassword({ email: user.email, password: current, address: origin.address }) : null;
      if (verified !== user._id) return { problem: usersService.INVALID_CURRENT_PASSWORD };
      const problem = await signUpService.passwordProblem(password);
      if (problem) return { problem };
      await setPassword(user, password, origin, 'password-changed');
      return { changed: true };
    },

    /** A second factor was added or removed: the owner is mailed, wherever it came from (nothing waits for the mail). */
    async factorChanged(userId: string, change: { added: boolean; what: string; from: string }): Promise<void> {
      const user = await users.findCurrent(userId);
      if (!user?.email || !mailer.available) return;
      mailer.send(factorChangeMail(user.email, { ...change, at: new Date() }, FACTOR_RULES.recentFactorDays, site));
    },

    /**
     * Wrong second factors ran into their budget: the owner is mailed, once a day at most (a refused
     * mail is no failure of the page that asked).
     */
    async factorGuessing(userId: string): Promise<void> {
      const user = await users.findCurrent(userId);
      if (!user?.email || !mailer.available) return;
      try {
        await reserve([{ rule: GUESSING_ALERT, key: userId }]);
      } catch {
        return;
      }
      mailer.send(factorGuessingMail(user.email, site));
    },

    /** The profile form: names and the claims, each by its rule; the email never changes. */
    async updateProfile(user: UserRecord, form: ProfileForm): Promise<{ problem: string } | { saved: true }> {
      for (const field of ['firstName', 'lastName'] as const) {
        const problem = await signUpService.nameProblem(field, form[field]);
        if (problem) return { problem };
      }
      if (form.picture && !signUpService.isPictureUrl(form.picture)) return { problem: signUpService.PICTURE_RULE };
      const checked = signUpService.checkedClaims(form.claims);
      if ('problem' in checked) return checked;
      await usersService.replaceProfile(user._id, {
        firstName: form.firstName || undefined,
        lastName: form.lastName || undefined,
        avatarUrl: form.picture || undefined,
        claims: Object.keys(checked.claims).length > 0 ? checked.claims : undefined,
      });
      return { saved: true };
    },
  };
}

/** The profile form as posted: names, and the claims in users.claims.ts's shape. */
export interface ProfileForm {
  firstName: string;
  lastName: string;
  picture: string;
  claims: Record<string, unknown>;
}

export type Accounts = ReturnType<typeof createAccounts>;
