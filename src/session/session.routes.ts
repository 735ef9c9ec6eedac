// Browser sign-in: GET/POST /login, POST /logout and GET /home, on top of the session middleware.
import { pageRefusals } from '../web/layout';
import { Router, type RequestHandler } from 'express';
import type { PersonVerifier } from '../sign-in/sign-in.service';
import type { Config } from '../config';
import { pageFormBody } from '../web/form-body';
import type { Csrf } from '../web/csrf';
import { signInProviders } from '../web/sign-in-providers';
import { createSessionController } from './session.controller';
import type { Journey } from '../sign-in/journey.types';
import type { ClientRegistry } from '../oauth/grants/grants.service';
import type { SessionEndedHook } from './session.middleware';
import { requireSession } from './session.middleware';

export function createSessionRouter(
  sessions: RequestHandler,
  csrf: Csrf,
  config: Config,
  verifyPassword: PersonVerifier,
  sessionEnded: SessionEndedHook,
  journey: Journey,
  clients: ClientRegistry,
): Router {
  const sessionController = createSessionController(csrf, verifyPassword, signInProviders(config), sessionEnded, journey, clients);
  const router = Router();
  router.get('/login', sessions, sessionController.showLogin);
  router.post('/login', sessions, pageFormBody, csrf.require, sessionController.login);
  router.post('/logout', sessions, pageFormBody, csrf.requireWhenSignedIn, sessionController.logout);
  router.get('/home', sessions, requireSession(), sessionController.home);
  router.use(pageRefusals);
  return router;
}
