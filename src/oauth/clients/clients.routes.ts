// Client registration: seed 001's register, list and delete of the clients a user owns (a seed 000
// access token or a browser session), and RFC 7591/7592 dynamic registration.
import { Router, type RequestHandler } from 'express';
import type { AccessTokens } from '../../common/access-tokens';
import { jsonBody } from '../../common/json-body';
import { limitsFor, perAddress } from '../../common/rate-limit';
import { seedRefusals } from '../../common/refusals';
import { validate } from '../../common/validation';
import type { Clock } from '../../common/clock';
import type { Config } from '../../config';
import * as clientsController from './clients.controller';
import type { ClientKeySets, ClientRemovedHook } from './clients.service';
import * as clientsValidation from './clients.validation';
import { oauthBodyErrors, oauthRefusals } from '../oauth.errors';
import { createRegistrationController } from './registration.controller';
import { ENDPOINTS } from '../protocol';

export function createClientsRouter(
  config: Config,
  accessTokens: AccessTokens,
  sessions: RequestHandler,
  clientRemoved: ClientRemovedHook,
  keySets: ClientKeySets,
  clock: Clock,
): Router {
  const user = clientsController.requireUser(accessTokens);
  const registration = createRegistrationController(config, accessTokens, clientRemoved, keySets, clock);
  const registrationLimit = [perAddress('registration:address', config.limits.registrationPerAddress)];
  const router = Router();
  // A body the parser refuses is answered in the RFC's error format too.
  router.post(
    ENDPOINTS.registration,
    jsonBody,
    oauthBodyErrors,
    ...limitsFor(config, registrationLimit),
    registration.register,
    oauthRefusals,
  );
  router.get(`${ENDPOINTS.registration}/:clientId`, registration.read);
  router.delete(`${ENDPOINTS.registration}/:clientId`, registration.remove);
  router.post(
    '/oauth/clients',
    sessions,
    user,
    jsonBody,
    validate(clientsValidation.registerClient),
    ...limitsFor(config, registrationLimit),
    clientsController.register,
    seedRefusals,
  );
  router.get('/oauth/clients', sessions, user, validate(clientsValidation.listClients), clientsController.list);
  router.delete('/oauth/clients/:clientId', sessions, user, clientsController.remove(clientRemoved));
  return router;
}
