// Application sign-in through an identity provider (seed 001): GET /auth/:provider, inside the
// session-enabled routes. GitHub is wired; another provider is a file in providers/.
import { Router, type RequestHandler } from 'express';
import type { Logger } from '../common/logger';
import type { Config } from '../config';
import { createSocialController } from './social.controller';
import type { Journey } from '../sign-in/journey.types';

export function createSocialRouter(config: Config, logger: Logger, sessions: RequestHandler, journey: Journey): Router {
  const router = Router();
  router.get('/auth/:provider', sessions, createSocialController(config, logger, journey));
  return router;
}
