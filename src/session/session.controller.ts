import type { Request, Response } from 'express';
import type { PersonVerifier } from '../sign-in/sign-in.service';
import { normalizeEmail } from '../common/email';
import { noStore } from '../common/no-store';
import { allowOwnScripts } from '../web/scripts';
import { applicationView } from '../web/applications';
import { bodyField } from '../common/request-body';
import { clientAddress } from '../common/rate-limit';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../common/validation';
import type { Csrf } from '../web/csrf';
import * as grantsService from '../oauth/grants/grants.service';
import { displayName } from '../users/users.types';
import { homePage, loginPage, type LoginView } from './session.page';
import type { Journey } from '../sign-in/journey.service';
import { sessionPerson, signedInPerson, signOut, type SessionEndedHook } from './session.middleware';
import * as sessionService from './session.service';
import { HTML_CONTENT_TYPE } from '../web/html';
import type { SignInProvider } from '../web/sign-in-providers';

export function createSessionController(
  csrf: Csrf,
  verifyPassword: PersonVerifier,
  providers: readonly SignInProvider[],
  sessionEnded: SessionEndedHook,
  journey: Journey,
  clients: grantsService.ClientStore,
) {
  // The login page runs the passkey button's script (web/scripts.ts).
  const page = (req: Request, res: Response, view: Omit<LoginView, 'csrfToken' | 'providers'>) => {
    allowOwnScripts(res);
    return loginPage({ ...view, csrfToken: csrf.token(req, res), providers });
  };
  return {
    async showLogin(req: Request, res: Response): Promise<void> {
      const returnTo = sessionService.safeReturnTo(req.query.return_to);
      // prompt=login (from the authorization endpoint) asks a signed-in person to sign in again.
      if (req.query.prompt !== 'login' && (await sessionPerson(req))) {
        res.redirect(302, returnTo);
        return;
      }
      const email = typeof req.query.login_hint === 'string' ? req.query.login_hint.slice(0, MAX_EMAIL_LENGTH) : undefined;
      res.type(HTML_CONTENT_TYPE).send(page(req, res, { returnTo, email }));
    },

    async login(req: Request, res: Response): Promise<void> {
      const { email, password, remember } = req.body as Record<string, unknown>;
      const returnTo = sessionService.safeReturnTo(bodyField(req, 'return_to'));
      const typedEmail = typeof email === 'string' ? normalizeEmail(email) : '';
      const person =
        typedEmail && typeof password === 'string' && password.length <= MAX_PASSWORD_LENGTH
          ? await verifyPassword({ email: typedEmail, password, address: clientAddress(req) })
          : null;
      if (!person) {
        res
          .status(401)
          .type(HTML_CONTENT_TYPE)
          .send(page(req, res, { returnTo, email: typedEmail.slice(0, MAX_EMAIL_LENGTH), error: 'Invalid email or password.' }));
        return;
      }
      const remembered = remember === '1' || remember === 'on';
      await journey.firstFactor(req, res, { ...person, method: 'pwd', remember: remembered, returnTo, via: 'password' });
    },

    async logout(req: Request, res: Response): Promise<void> {
      const ended = await signOut(req);
      if (ended) await sessionEnded(ended);
      res.clearCookie('sid', { path: '/' });
      res.redirect(303, '/login');
    },

    async home(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      const applications = (await grantsService.listConnected(clients, user._id)).map(applicationView);
      noStore(res)
        .type(HTML_CONTENT_TYPE)
        .send(
          homePage({
            name: displayName(user),
            email: user.email,
            avatarUrl: user.avatarUrl,
            csrfToken: csrf.token(req, res),
            applications,
          }),
        );
    },
  };
}
