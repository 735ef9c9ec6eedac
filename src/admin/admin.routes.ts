// The admin API's people and events, for tokens with the `admin` scope (docs/operations.md).
import { Router, type RequestHandler } from 'express';
import { ADMIN_API } from '../oauth/protocol';
import { createAdminController } from './admin.controller';
import type { Administration } from './admin.service';

export function createAdminRouter(adminToken: RequestHandler, administration: Administration): Router {
  const admin = createAdminController(administration);
  const people = ADMIN_API.people;
  const router = Router();
  router.use([people, ADMIN_API.events], adminToken);
  router.get(people, admin.listPeople);
  router.route(`${people}/:id`).get(admin.showPerson).delete(admin.remove);
  router.get(`${people}/:id/applications`, admin.applications);
  router.delete(`${people}/:id/applications/:clientId`, admin.revokeApplication);
  router.post(`${people}/:id/disable`, admin.setDisabled(true));
  router.post(`${people}/:id/enable`, admin.setDisabled(false));
  router.delete(`${people}/:id/sessions`, admin.endSessions);
  router.delete(`${people}/:id/factors`, admin.resetFactors);
  router.get(ADMIN_API.events, admin.events);
  return router;
}
