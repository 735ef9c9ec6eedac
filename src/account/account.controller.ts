// The self-service pages' requests in and pages out; the rules are account.service.ts's.
import type { Request, Response } from 'express';
import { noStore } from '../common/no-store';
import { deviceName } from '../common/user-agent';
import { readForm, readQuery } from '../common/request-fields';
import { ACCOUNT_QUERY, FORGOT_FORM, LINK_QUERY, PASSWORD_FORM, PROFILE_FORM, RESET_FORM, SIGN_UP_FORM } from './account.fields';
import { clientAddress, displayAddress } from '../common/rate-limit';
import * as grantsService from '../oauth/grants/grants.service';
import * as factorsService from '../factors/factors.service';
import { allowOwnScripts } from '../web/scripts';
import { applicationView } from '../web/applications';
import { sessionId, sessionPerson, sessionUserId, signedInPerson, type SessionEndedHook } from '../session/session.middleware';
import type { Journey } from '../sign-in/journey.types';
import * as sessionService from '../session/session.service';
import type { PasswordVerifier } from '../sign-in/sign-in.service';
import { ADDRESS_FIELDS, CLAIM_FIELDS } from '../users/sign-up.service';
import * as usersService from '../users/users.service';
import type { Csrf } from '../web/csrf';
import {
  accountPage,
  deadLinkPage,
  emailVerifiedPage,
  forgotPasswordPage,
  resetDonePage,
  resetPasswordPage,
  signUpPage,
  type AccountNotice,
  type AccountView,
} from './account.page';
import { ACCOUNT_RULES } from './account.rules';
import type { Accounts, Origin } from './account.service';
import type { ActivityLog } from './activity.service';
import { HTML_CONTENT_TYPE as HTML } from '../web/html';
import type { Config } from '../config';
import * as upstreamService from '../upstream/upstream.service';
import { signInProviders } from '../web/sign-in-providers';

const origin = (req: Request): Origin => ({
  address: clientAddress(req),
  shown: displayAddress(req),
  device: deviceName(req.get('User-Agent')),
});

const RESET_AGAIN = { href: '/forgot-password', label: 'Ask for a new link' };

export function createAccountController(
  csrf: Csrf,
  accounts: Accounts,
  activity: ActivityLog,
  verifyPassword: PasswordVerifier,
  sessionEnded: SessionEndedHook,
  journey: Journey,
  config: Config,
  clients: grantsService.ClientRegistry,
) {
  const providers = signInProviders(config);
  const page = (res: Response, status: number, body: string) => noStore(res).status(status).type(HTML).send(body);
  const ended = async (sessions: sessionService.EndedSession[]) => {
    for (const session of sessions) await sessionEnded(session);
  };

  async function renderAccount(req: Request, res: Response, extra: Partial<Pick<AccountView, 'notice' | 'problem'>>, status = 200) {
    const user = signedInPerson(res);
    const { sessions_page: sessionsPage, activity_page: activityPage } = readQuery(ACCOUNT_QUERY, req);
    const [sessions, applications, events, factors, linked, hasPassword] = await Promise.all([
      sessionService.listSessions(user._id, sessionId(req), sessionsPage, ACCOUNT_RULES.pageSize),
      grantsService.listConnected(clients, user._id),
      activity.list(user._id, activityPage),
      factorsService.summary(user._id),
      upstreamService.linkedProviders(config.upstream.providers, user._id),
      usersService.hasPassword(user._id),
    ]);
    const { address, ...claims } = user.claims ?? {};
    page(
      allowOwnScripts(res),
      status,
      accountPage({
        csrfToken: csrf.token(req, res),
        factors: {
          totp: factors.totp,
          recoveryLeft: factors.recoveryLeft,
          recoveryMade: factors.recoveryMade,
          passkeyNameMax: factors.passkeyNameMax,
          passkeys: factors.passkeys.map((passkey) => ({
            id: passkey._id,
            name: passkey.name,
            createdAt: passkey.createdAt,
            lastUsedAt: passkey.lastUsedAt,
          })),
        },
        ...extra,
        email: user.email,
        hasPassword,
        operator: usersService.isAdmin(user),
        emailVerified: user.emailVerified === true,
        mail: accounts.mailAvailable,
        profile: {
          firstName: user.firstName ?? '',
          lastName: user.lastName ?? '',
          picture: user.avatarUrl ?? '',
          claims,
          address: address ?? {},
        },
        sessions: { list: sessions.sessions, page: sessionsPage, more: sessions.more },
        applications: applications.map(applicationView),
        activity: { list: events.events, page: activityPage, more: events.more },
        providers: linked,
      }),
    );
  }

  const done = (res: Response, notice: AccountNotice) => res.redirect(303, `/account?done=${notice}`);

  return {
    async showSignUp(req: Request, res: Response): Promise<void> {
      if (sessionUserId(req) && (await sessionPerson(req))) return void res.redirect(302, '/account');
      page(
        res,
        200,
        signUpPage({ csrfToken: csrf.token(req, res), providers, values: { email: '', firstName: '', lastName: '' }, problems: [] }),
      );
    },

    async signUp(req: Request, res: Response): Promise<void> {
      const form = readForm(SIGN_UP_FORM, req);
      const fields = {
        email: form.email ?? '',
        password: form.password ?? '',
        firstName: form.firstName ?? '',
        lastName: form.lastName ?? '',
      };
      const outcome = await accounts.signUp(fields, origin(req));
      if ('problems' in outcome) {
        const values = { email: fields.email, firstName: fields.firstName, lastName: fields.lastName };
        return void page(res, 400, signUpPage({ csrfToken: csrf.token(req, res), providers, values, problems: outcome.problems }));
      }
      await journey.firstFactor(req, res, {
        userId: outcome.userId,
        method: 'pwd',
        remember: false,
        returnTo: '/account?done=signed-up',
        via: 'new account',
        active: true,
      });
    },

    async verifyEmail(req: Request, res: Response): Promise<void> {
      const outcome = await accounts.verifyEmail(readQuery(LINK_QUERY, req).token, origin(req));
      if ('dead' in outcome) {
        const again = sessionUserId(req)
          ? { href: '/account', label: 'Send a new link from your account' }
          : { href: '/login', label: 'Sign in to send a new link' };
        return void page(res, 400, deadLinkPage(outcome.dead, again));
      }
      page(res, 200, emailVerifiedPage(outcome.verified, Boolean(await sessionPerson(req))));
    },

    async resendVerification(_req: Request, res: Response): Promise<void> {
      await accounts.resendVerification(signedInPerson(res));
      done(res, 'verification');
    },

    showForgot(req: Request, res: Response): void {
      page(res, 200, forgotPasswordPage({ csrfToken: csrf.token(req, res), email: '', sent: false, mail: accounts.mailAvailable }));
    },

    async forgot(req: Request, res: Response): Promise<void> {
      const email = readForm(FORGOT_FORM, req).email ?? '';
      const view = { csrfToken: csrf.token(req, res), email, mail: accounts.mailAvailable };
      if (!accounts.mailAvailable) return void page(res, 503, forgotPasswordPage({ ...view, sent: false }));
      const problem = await accounts.emailProblem(email);
      if (problem) return void page(res, 400, forgotPasswordPage({ ...view, sent: false, problem }));
      await accounts.requestReset(email, origin(req));
      page(res, 200, forgotPasswordPage({ ...view, email: '', sent: true }));
    },

    async showReset(req: Request, res: Response): Promise<void> {
      const outcome = await accounts.checkReset(readQuery(LINK_QUERY, req).token);
      if ('dead' in outcome) return void page(res, 400, deadLinkPage(outcome.dead, RESET_AGAIN));
      page(res, 200, resetPasswordPage({ csrfToken: csrf.token(req, res), token: outcome.token }));
    },

    async reset(req: Request, res: Response): Promise<void> {
      const form = readForm(RESET_FORM, req);
      const outcome = await accounts.resetPassword(form.token, form.password ?? '', origin(req));
      if ('dead' in outcome) return void page(res, 400, deadLinkPage(outcome.dead, RESET_AGAIN));
      if ('problem' in outcome) {
        const view = { csrfToken: csrf.token(req, res), token: form.token ?? '', problem: outcome.problem };
        return void page(res, 400, resetPasswordPage(view));
      }
      // Factors added before the address was verified may be a squatter's: the mailbox's owner gets the
      // account without them. Otherwise the person may remove the ones added lately.
      const recentOnly = !outcome.wasUnverified && form.remove_recent_factors === '1';
      const since = outcome.wasUnverified ? new Date(0) : recentOnly ? factorsService.recentSince(new Date()) : null;
      const removed = since ? await factorsService.removeFactorsSince(outcome.userId, since) : [];
      for (const what of removed) {
        await activity.record(outcome.userId, 'factor-removed', {
          address: displayAddress(req),
          detail: `${what}, with the password reset`,
        });
        await accounts.factorChanged(outcome.userId, { added: false, what, from: displayAddress(req) });
      }
      // A mailbox is not a second factor (issue 48, finding 6): a reset that took recent factors away
      // signs no one in, so the mailbox alone never passes the second step; the person signs in anew
      // with the new password, and any older factor left.
      if (recentOnly && removed.length > 0) return void page(res, 200, resetDonePage(removed));
      // Every session ended with the old password; this browser starts a new one, after the second
      // factor when the account has one.
      await journey.firstFactor(req, res, {
        userId: outcome.userId,
        method: 'pwd',
        remember: false,
        returnTo: removed.length > 0 ? '/account?done=reset-factors' : '/account?done=reset',
        via: 'password reset',
        // The reset link's check found the account active (account-links.service.ts).
        active: true,
      });
    },

    async showAccount(req: Request, res: Response): Promise<void> {
      await renderAccount(req, res, { notice: readQuery(ACCOUNT_QUERY, req).done });
    },

    async saveProfile(req: Request, res: Response): Promise<void> {
      const typed = readForm(PROFILE_FORM, req);
      const field = (name: string) => ((typed as Record<string, string | undefined>)[name] ?? '').trim();
      const claims: Record<string, unknown> = Object.fromEntries(CLAIM_FIELDS.map((name) => [name, field(name)]));
      claims.address = Object.fromEntries(ADDRESS_FIELDS.map((name) => [name, field(`address.${name}`)]));
      const form = { firstName: field('firstName'), lastName: field('lastName'), picture: field('picture'), claims };
      const outcome = await accounts.updateProfile(signedInPerson(res), form);
      if ('problem' in outcome) return renderAccount(req, res, { problem: { form: 'profile', message: outcome.problem } }, 400);
      done(res, 'profile');
    },

    async changePassword(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      const { currentPassword = '', password = '' } = readForm(PASSWORD_FORM, req);
      const outcome = await accounts.changePassword(user, currentPassword, password, origin(req), verifyPassword);
      if ('problem' in outcome) return renderAccount(req, res, { problem: { form: 'password', message: outcome.problem } }, 400);
      // Every session ended with the old password, this one too: this browser starts a new one,
      // signed in as strongly as before.
      await journey.renewed(req, user._id);
      done(res, 'password');
    },

    async endSession(req: Request<{ handle: string }>, res: Response): Promise<void> {
      await ended((await sessionService.endSession(signedInPerson(res)._id, sessionId(req), req.params.handle)) ?? []);
      done(res, 'session-ended');
    },

    async endOtherSessions(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      const endedSessions = await sessionService.endOtherSessions(user._id, sessionId(req));
      await ended(endedSessions);
      if (endedSessions.length > 0)
        await activity.record(user._id, 'sessions-ended', { address: displayAddress(req), detail: `${endedSessions.length}` });
      done(res, 'sessions-ended');
    },
  };
}
