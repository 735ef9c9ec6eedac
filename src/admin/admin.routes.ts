// The admin API's people and events, for tokens with the `admin` scope (docs/operations.md).
import { Router, type RequestHandler } from 'express';
import type { ActivityLog } from '../account/activity.service';
import { ADMIN_API } from '../oauth/protocol';
import type { SessionEndedHook } from '../session/session.middleware';
import type { AccessEndedHook } from '../users/users.service';
import { createAdminController } from './admin.controller';

export function createAdminRouter(
  adminToken: RequestHandler,
  activity: ActivityLog,
  ends: { accessEnded: AccessEndedHook; sessionEnded: SessionEndedHook },
): Router {
  const admin = createAdminController(activity, ends);
  const people = ADMIN_API.people;
  const router = Router();
  router.use([people, ADMIN_API.events], adminToken);
  router.get(people, admin.listPeople);
  router.get(`${people}/:id`, admin.showPerson);
  router.post(`${people}/:id/disable`, admin.setDisabled(true));
  router.post(`${people}/:id/enable`, admin.setDisabled(false));
  router.delete(`${people}/:id/sessions`, admin.endSessions);
  router.delete(`${people}/:id/factors`, admin.resetFactors);
  router.get(ADMIN_API.events, admin.events);
  return router;
}
