// The self-service pages (docs/accounts.md): /signup, /verify-email, /forgot-password,
// /reset-password and /account with its forms. Every form carries the CSRF token; every page is
// no-store and framed by nobody (the pages' security headers).
import { Router, type RequestHandler } from 'express';
import { limitsFor, perAddress } from '../common/rate-limit';
import { pageRefusals } from '../web/layout';
import type { Config } from '../config';
import { requireSession, type SessionEndedHook } from '../session/session.middleware';
import type { Journey } from '../sign-in/journey.types';
import type { ClientRegistry } from '../oauth/grants/grants.service';
import type { PasswordVerifier } from '../sign-in/sign-in.service';
import type { Csrf } from '../web/csrf';
import { pageFormBody } from '../web/form-body';
import { createAccountController } from './account.controller';
import type { Accounts } from './account.service';
import type { ActivityLog } from './activity.service';

export function createAccountRouter(
  config: Config,
  sessions: RequestHandler,
  csrf: Csrf,
  accounts: Accounts,
  activity: ActivityLog,
  verifyPassword: PasswordVerifier,
  sessionEnded: SessionEndedHook,
  journey: Journey,
  clients: ClientRegistry,
): Router {
  const account = createAccountController(csrf, accounts, activity, verifyPassword, sessionEnded, journey, config, clients);
  // The same counter as POST /users: sign-ups from one address, whichever way they come.
  const signUpLimits = limitsFor(config, [perAddress('sign-up:address', config.limits.signUpPerAddress)]);
  const form = [sessions, pageFormBody];
  // A signed-in form: a stale session goes to sign in and comes back to /account.
  const signedInForm = [...form, requireSession('sign-in', '/account'), csrf.require];

  const router = Router();
  router.get('/signup', sessions, account.showSignUp);
  router.post('/signup', ...form, csrf.require, ...signUpLimits, account.signUp);
  router.get('/verify-email', sessions, account.verifyEmail);
  router.get('/forgot-password', sessions, account.showForgot);
  router.post('/forgot-password', ...form, csrf.require, account.forgot);
  router.get('/reset-password', sessions, account.showReset);
  router.post('/reset-password', ...form, csrf.require, account.reset);
  router.get('/account', sessions, requireSession(), account.showAccount);
  router.post('/account/verify-email', ...signedInForm, account.resendVerification);
  router.post('/account/profile', ...signedInForm, account.saveProfile);
  router.post('/account/password', ...signedInForm, account.changePassword);
  router.post('/account/sessions/sign-out-others', ...signedInForm, account.endOtherSessions);
  router.post('/account/sessions/:handle/sign-out', ...signedInForm, account.endSession);
  router.use(pageRefusals);
  return router;
}
