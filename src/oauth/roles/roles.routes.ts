// The admin API's roles (docs/oauth.md, Roles), for tokens with the `admin` scope.
import { oauthRefusals } from '../oauth.errors';
import { Router, type RequestHandler } from 'express';
import type { ActivityLog } from '../../account/activity.service';
import { jsonBody } from '../../common/json-body';
import { oauthBodyErrors } from '../oauth.errors';
import { ADMIN_API } from '../protocol';
import { createRolesController } from './roles.controller';

export function createRolesRouter(adminToken: RequestHandler, activity: ActivityLog): Router {
  const roles = createRolesController(activity);
  const router = Router();
  // Only its own paths: the admin API's router guards the rest of /admin/api/people, and a guard
  // run twice on one request would see its DPoP proof's jti a second time.
  router.use([ADMIN_API.roles, `${ADMIN_API.people}/:id/roles`], adminToken);
  router.route(ADMIN_API.roles).get(roles.list).post(jsonBody, oauthBodyErrors, roles.create);
  router.delete(`${ADMIN_API.roles}/:name`, roles.remove);
  router.get(`${ADMIN_API.people}/:id/roles`, roles.ofPerson);
  router.route(`${ADMIN_API.people}/:id/roles/:name`).put(roles.give).delete(roles.take);
  router.use(oauthRefusals);
  return router;
}
