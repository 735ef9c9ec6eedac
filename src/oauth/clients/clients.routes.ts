// Client registration (seed 001 part A): register, list and delete the clients a user owns, with a
// seed 000 access token or a browser session.
import { Router, type RequestHandler } from 'express';
import type { AccessTokens } from '../../common/access-tokens';
import { jsonBody } from '../../common/json-body';
import { validate } from '../../common/validation';
import * as clientsController from './clients.controller';
import * as clientsValidation from './clients.validation';

export function createClientsRouter(accessTokens: AccessTokens, sessions: RequestHandler): Router {
  const user = clientsController.requireUser(accessTokens);
  const router = Router();
  router.post('/oauth/clients', sessions, user, jsonBody, validate(clientsValidation.registerClient), clientsController.register);
  router.get('/oauth/clients', sessions, user, clientsController.list);
  router.delete('/oauth/clients/:clientId', sessions, user, clientsController.remove);
  return router;
}
