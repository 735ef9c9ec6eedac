// The admin API's people, applications, keys and events, for tokens with the `admin` scope (docs/operations.md).
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { ADMIN_API } from '../oauth/protocol';
import { createAdminController } from './admin.controller';
import type { Administration } from './admin.service';

export function createAdminRouter(
  adminToken: RequestHandler,
  jsonBody: [RequestHandler, ErrorRequestHandler],
  administration: Administration,
  /** The OAuth endpoints' presenter: the admin API's refusals are in the OAuth shape. */
  oauthRefusals: ErrorRequestHandler,
): Router {
  const admin = createAdminController(administration);
  const people = ADMIN_API.people;
  const router = Router();
  const applications = ADMIN_API.applications;
  const agents = [ADMIN_API.exchangePolicies, ADMIN_API.documentClients, ADMIN_API.documentHosts];
  router.use([people, ADMIN_API.events, applications, ADMIN_API.keys, ...agents], adminToken);
  router.get(people, admin.listPeople);
  router.route(`${people}/:id`).get(admin.showPerson).delete(admin.remove);
  router.get(`${people}/:id/applications`, admin.applications);
  router.delete(`${people}/:id/applications/:clientId`, admin.revokeApplication);
  router.post(`${people}/:id/disable`, admin.setDisabled(true));
  router.post(`${people}/:id/enable`, admin.setDisabled(false));
  router.route(`${people}/:id/sessions`).get(admin.sessions).delete(admin.endSessions);
  router.delete(`${people}/:id/sessions/:handle`, admin.endSession);
  router.post(`${people}/:id/reset-link`, admin.sendResetLink);
  router.delete(`${people}/:id/factors`, admin.resetFactors);
  router.post(`${people}/:id/unlock`, admin.unlock);
  router.get(ADMIN_API.events, admin.events);
  router
    .route(applications)
    .get(admin.listApplications)
    .post(...jsonBody, admin.registerApplication);
  router
    .route(`${applications}/:clientId`)
    .get(admin.showApplication)
    .patch(...jsonBody, admin.changeApplication)
    .delete(admin.removeApplication);
  router.post(`${applications}/:clientId/secret`, admin.rotateSecret);
  router.get(`${applications}/:clientId/grants`, admin.grantsOf);
  router.get(ADMIN_API.keys, admin.keys);
  router.post(`${ADMIN_API.keys}/rotate`, admin.rotateKeys);
  // Agents (docs/oauth.md): token exchange rules, document clients and document hosts.
  router
    .route(ADMIN_API.exchangePolicies)
    .get(admin.exchangePolicies)
    .put(...jsonBody, admin.setExchangePolicy)
    .delete(admin.removeExchangePolicy);
  router.get(ADMIN_API.documentClients, admin.documentClients);
  router.get(ADMIN_API.documentHosts, admin.documentHosts);
  router
    .route(`${ADMIN_API.documentHosts}/:host`)
    .put(...jsonBody, admin.ruleDocumentHost)
    .delete(admin.forgetDocumentHost);
  router.use(oauthRefusals);
  return router;
}
