// The admin API's rules for agents, for tokens with the `admin` scope (docs/oauth.md, "Agents").
import { Router, type RequestHandler } from 'express';
import type { ActivityLog } from '../../account/activity.service';
import { jsonBody } from '../../common/json-body';
import { oauthBodyErrors, oauthRefusals } from '../oauth.errors';
import { ADMIN_API } from '../protocol';
import { createAgentsController } from './agents.controller';

export function createAgentsRouter(adminToken: RequestHandler, activity: Pick<ActivityLog, 'record'>): Router {
  const agents = createAgentsController(activity);
  const router = Router();
  router.use([ADMIN_API.exchangePolicies, ADMIN_API.documentClients, ADMIN_API.documentHosts], adminToken);
  router
    .route(ADMIN_API.exchangePolicies)
    .get(agents.listPolicies)
    .put(jsonBody, oauthBodyErrors, agents.setPolicy)
    .delete(agents.removePolicy);
  router.get(ADMIN_API.documentClients, agents.listDocumentClients);
  router.get(ADMIN_API.documentHosts, agents.listHosts);
  router.route(`${ADMIN_API.documentHosts}/:host`).put(jsonBody, oauthBodyErrors, agents.ruleHost).delete(agents.forgetHost);
  router.use(oauthRefusals);
  return router;
}
