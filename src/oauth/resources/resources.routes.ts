// The admin API's resources, for tokens with the `admin` scope (a client the operator allowed; see
// `npm run oauth:client -- update <id> --operator yes`).
import { oauthRefusals } from '../oauth.errors';
import { Router, type RequestHandler } from 'express';
import { jsonBody } from '../../common/json-body';
import type { Config } from '../../config';
import type { ActivityLog } from '../../account/activity.service';
import { oauthBodyErrors } from '../oauth.errors';
import { ADMIN_API } from '../protocol';
import { createResourcesController } from './resources.controller';

export function createResourcesRouter(config: Config, adminToken: RequestHandler, activity: ActivityLog): Router {
  const resources = createResourcesController(config, activity);
  const router = Router();
  router.use(ADMIN_API.resources, adminToken);
  // A body the parser refuses is answered in the API's own shape, as its other refusals are.
  router.route(ADMIN_API.resources).get(resources.list).post(jsonBody, oauthBodyErrors, resources.create);
  router.delete(`${ADMIN_API.resources}/:id`, resources.remove);
  router.use(oauthRefusals);
  return router;
}
