// The demo's callback page, mounted only outside production (see oauth.routes.ts).
import { Router } from 'express';
import type { Config } from '../../config';
import type { Csrf } from '../../web/csrf';
import { pageFormBody } from '../../web/form-body';
import { createCallbackDebugController } from './callback-debug.controller';
import { pageRefusals } from '../../web/layout';
import { CALLBACK_DEBUG_PATH } from './demo.service';

export function createDemoRouter(config: Config, csrf: Csrf): Router {
  const callbackDebug = createCallbackDebugController(config, csrf);
  const router = Router();
  router.get(CALLBACK_DEBUG_PATH, callbackDebug.show);
  router.post(CALLBACK_DEBUG_PATH, pageFormBody, csrf.require, callbackDebug.exchange, pageRefusals);
  return router;
}
