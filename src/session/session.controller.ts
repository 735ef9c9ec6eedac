import type { Request, Response } from 'express';
import type { PersonVerifier } from '../sign-in/sign-in.service';
import { normalizeEmail } from '../common/email';
import { noStore } from '../common/no-store';
import { allowOwnScripts } from '../web/scripts';
import { applicationView } from '../web/applications';
import { readForm, readQuery } from '../common/request-fields';
import { SIGN_IN_FORM, SIGN_IN_QUERY } from './session.fields';
import { clientAddress } from '../common/rate-limit';
import type { Csrf } from '../web/csrf';
import * as grantsService from '../oauth/grants/grants.service';
import { displayName } from '../users/users.types';
import * as usersService from '../users/users.service';
import { homePage, loginPage, type LoginView } from './session.page';
import type { Journey } from '../sign-in/journey.types';
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
  clients: grantsService.ClientRegistry,
) {
  // The login page runs the passkey button's script (web/scripts.ts).
  const page = (req: Request, res: Response, view: Omit<LoginView, 'csrfToken' | 'providers'>) => {
    allowOwnScripts(res);
    return loginPage({ ...view, csrfToken: csrf.token(req, res), providers });
  };
  return {
    async showLogin(req: Request, res: Response): Promise<void> {
      const query = readQuery(SIGN_IN_QUERY, req);
      const returnTo = sessionService.safeReturnTo(query.return_to);
      // prompt=login (from the authorization endpoint) asks a signed-in person to sign in again.
      if (query.prompt !== 'login' && (await sessionPerson(req))) {
        res.redirect(302, returnTo);
        return;
      }
      const email = query.login_hint;
      res.type(HTML_CONTENT_TYPE).send(page(req, res, { returnTo, email }));
    },

    async login(req: Request, res: Response): Promise<void> {
      const { email, password, remember, return_to } = readForm(SIGN_IN_FORM, req);
      const returnTo = sessionService.safeReturnTo(return_to);
      const typedEmail = email === undefined ? '' : normalizeEmail(email);
      const person =
        typedEmail && password !== undefined ? await verifyPassword({ email: typedEmail, password, address: clientAddress(req) }) : null;
      if (!person) {
        res
          .status(401)
          .type(HTML_CONTENT_TYPE)
          .send(page(req, res, { returnTo, email: typedEmail, error: 'Invalid email or password.' }));
        return;
      }
      // The password check found the account active (a disabled one is a wrong password there).
      await journey.firstFactor(req, res, {
        ...person,
        method: 'pwd',
        remember: remember !== undefined,
        returnTo,
        via: 'password',
        active: true,
      });
    },

    async logout(req: Request, res: Response): Promise<void> {
      const ended = await signOut(req);
      if (ended) await sessionEnded(ended);
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
            operator: usersService.isAdmin(user),
          }),
        );
    },
  };
}
