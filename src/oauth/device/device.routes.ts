// The device authorization grant (RFC 8628, beyond the seeds): the endpoint a device starts at, and the
// verification page where a signed-in person types the user code (rate-limited per address).
import type { Stores } from '../../stores';
import { Router, type RequestHandler } from 'express';
import { jsonBody } from '../../common/json-body';
import { limitsFor, perAddress } from '../../common/rate-limit';
import type { Config } from '../../config';
import { requireSession } from '../../session/session.middleware';
import type { Csrf } from '../../web/csrf';
import { formBody, pageFormBody } from '../../web/form-body';
import { pageRefusals } from '../../web/layout';
import { oauthBodyErrors, oauthRefusals } from '../oauth.errors';
import { createDeviceController } from './device.controller';
import type { Clock } from '../../common/clock';
import { ENDPOINTS } from '../protocol';

export function createDeviceRouter(config: Config, sessions: RequestHandler, csrf: Csrf, stores: Stores, clock: Clock): Router {
  const device = createDeviceController(config, csrf, stores, clock);
  const userCodeLimits = limitsFor(config, [perAddress('user-code:address', config.limits.userCodePerAddress)]);
  const router = Router();
  router.post(ENDPOINTS.deviceAuthorization, jsonBody, formBody, oauthBodyErrors, device.authorizeDevice, oauthRefusals);
  const person = requireSession('sign-in', '/device');
  router.get('/device', sessions, person, device.showVerification, pageRefusals);
  router.post('/device', sessions, pageFormBody, csrf.require, person, ...userCodeLimits, device.verify, pageRefusals);
  // Approving or denying takes a typed code too, so it shares the typing budget.
  router.post('/device/decision', sessions, pageFormBody, csrf.require, person, ...userCodeLimits, device.decide, pageRefusals);
  return router;
}
