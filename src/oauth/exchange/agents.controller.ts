// The admin API's rules for agents (docs/oauth.md, "Agents"): token exchange rules, the clients known
// by their metadata documents, and the rule for each document host. Errors in the OAuth shape, as
// everywhere a bearer token is the credential; every list pages; every change is an event naming who.
import type { Request, Response } from 'express';
import type { ActivityLog } from '../../account/activity.service';
import { AppError } from '../../common/errors';
import { noStore } from '../../common/no-store';
import { displayAddress } from '../../common/rate-limit';
import { readBody, readQuery } from '../../common/request-fields';
import * as documents from '../clients/client-documents.service';
import * as clientsService from '../clients/clients.service';
import * as grantsService from '../grants/grants.service';
import type { AccessGrant } from '../tokens/tokens.service';
import { AGENT_QUERIES, DOCUMENT_HOST_RULE } from './agents.fields';
import * as exchangeService from './exchange.service';

const notFound = (what: string) => new AppError(404, { error: 'not_found', error_description: `No ${what.slice(0, 200)}` });

/** The client registered under the id (documents are not registered: they name themselves). */
export const isRegistered = async (clientId: string): Promise<boolean> =>
  documents.isDocumentClientId(clientId) || (await clientsService.details(clientId)) !== null;

export function createAgentsController(activity: Pick<ActivityLog, 'record'>) {
  const by = (req: Request, res: Response, what: string) => {
    const { clientId } = res.locals.oauthGrant as AccessGrant;
    return { address: displayAddress(req), detail: `${what}, by ${clientId}`, actor: `client:${clientId}`, clientId };
  };
  const hostParam = (req: Request): string => {
    const host = documents.hostOf(String(req.params.host));
    if (!host)
      throw new AppError(400, { error: 'invalid_request', error_description: 'host must be a host name, with its port when not 443' });
    return host;
  };
  return {
    /** GET /admin/api/exchange-policies?limit&after */
    async listPolicies(req: Request, res: Response): Promise<void> {
      const { limit, after } = readQuery(exchangeService.EXCHANGE_POLICIES_QUERY, req);
      noStore(res).json(await exchangeService.page(limit, after));
    },

    /** PUT /admin/api/exchange-policies: sets the client's rule for the audience (replacing it). */
    async setPolicy(req: Request, res: Response): Promise<void> {
      const policy = await exchangeService.set(req.body, isRegistered);
      await activity.record(null, 'exchange-policy-set', by(req, res, `${policy.client_id} to ${policy.audience} (${policy.token_type})`));
      noStore(res).json(policy);
    },

    /** DELETE /admin/api/exchange-policies?client_id&audience */
    async removePolicy(req: Request, res: Response): Promise<void> {
      const { client_id: clientId, audience } = readQuery(AGENT_QUERIES.policy, req);
      if (clientId === undefined || audience === undefined)
        throw new AppError(400, { error: 'invalid_request', error_description: 'client_id and audience name the rule' });
      if (!(await exchangeService.remove(clientId, audience))) throw notFound(`rule for ${clientId} to ${audience}`);
      await activity.record(null, 'exchange-policy-deleted', by(req, res, `${clientId} to ${audience}`));
      res.status(204).end();
    },

    /** GET /admin/api/document-clients?q&limit&after: those whose URL starts with q. */
    async listDocumentClients(req: Request, res: Response): Promise<void> {
      const { q, limit, after } = readQuery(AGENT_QUERIES.documentClients, req);
      noStore(res).json(await documents.pageOfDocumentClients(q, after, limit, grantsService.peopleOfClient));
    },

    /** GET /admin/api/document-hosts?limit&after */
    async listHosts(req: Request, res: Response): Promise<void> {
      const { limit, after } = readQuery(AGENT_QUERIES.hosts, req);
      noStore(res).json(await documents.pageOfHosts(after, limit));
    },

    /** PUT /admin/api/document-hosts/:host { rule: allow | block } */
    async ruleHost(req: Request, res: Response): Promise<void> {
      const host = hostParam(req);
      const { rule } = readBody(DOCUMENT_HOST_RULE.fields, DOCUMENT_HOST_RULE.required, req.body);
      const view = await documents.ruleHost(host, rule!);
      await activity.record(null, 'document-host-ruled', by(req, res, `${rule} ${host}`));
      noStore(res).json(view);
    },

    /** DELETE /admin/api/document-hosts/:host: the host goes back to what CLIENT_ID_DOCUMENTS gives hosts without a rule. */
    async forgetHost(req: Request, res: Response): Promise<void> {
      const host = hostParam(req);
      if (!(await documents.forgetHost(host))) throw notFound(`rule for ${host}`);
      await activity.record(null, 'document-host-ruled', by(req, res, `forgot ${host}`));
      res.status(204).end();
    },
  };
}
