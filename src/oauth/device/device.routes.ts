// The device authorization grant (RFC 8628, beyond the seeds): the endpoint a device starts at, and the
// verification page where a signed-in person types the user code (rate-limited per address).
import { Router, type RequestHandler } from 'express';
import { jsonBody } from '../../common/json-body';
import { clientAddress, limitsFor, tooManyRequestsAs } from '../../common/rate-limit';
import type { Config } from '../../config';
import { requireSession } from '../../session/session.middleware';
import type { Csrf } from '../../web/csrf';
import { formBody } from '../../web/form-body';
import { errorPage } from '../../web/layout';
import { oauthBodyErrors } from '../oauth.errors';
import { createDeviceController } from './device.controller';

const WINDOW_MS = 15 * 60_000;

export function createDeviceRouter(config: Config, sessions: RequestHandler, csrf: Csrf): Router {
  const device = createDeviceController(config, csrf);
  const userCodeLimits = limitsFor(
    config,
    [{ rule: { name: 'user-code:address', limit: config.limits.userCodePerAddress, windowMs: WINDOW_MS }, key: clientAddress }],
    (refused) =>
      tooManyRequestsAs(
        errorPage('Too many codes', 'Too many codes were typed from here. Wait a while and try again.'),
        { 'Content-Type': 'text/html; charset=utf-8' },
        refused,
      ),
  );
  const router = Router();
  router.post('/oauth/device_authorization', jsonBody, formBody, oauthBodyErrors, device.authorizeDevice);
  const person = requireSession('sign-in', '/device');
  router.get('/device', sessions, person, device.showVerification);
  router.post('/device', sessions, formBody, csrf.require, person, ...userCodeLimits, device.verify);
  router.post('/device/decision', sessions, formBody, csrf.require, person, device.decide);
  return router;
}
