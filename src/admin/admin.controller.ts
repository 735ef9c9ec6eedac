// The admin API (docs/operations.md, "The admin API"): what an operator's scripts do to accounts,
// applications and keys, each change an event naming the client that made it. Errors in the OAuth shape ({ error, error_description }), as everywhere a bearer token is the
// credential. Every list pages, at most LIMITS.pageSize at a time.
import type { Request, Response } from 'express';
import { AppError } from '../common/errors';
import { noStore } from '../common/no-store';
import { displayAddress } from '../common/rate-limit';
import { CHANGEABLE_METADATA, RegistrationError } from '../oauth/clients/registration.service';
import type { AccessGrant } from '../oauth/tokens/tokens.service';
import { readEventsCursor, type Administration, type Operator } from './admin.service';
import { ADMIN_QUERIES } from './admin.queries';
import { readBody, readQuery } from '../common/request-fields';
import { hostOf } from '../oauth/clients/client-documents.service';
import { AGENT_QUERIES, DOCUMENT_HOST_RULE } from './agents.fields';

const invalid = (description: string) => new AppError(400, { error: 'invalid_request', error_description: description });

export function createAdminController(admin: Administration) {
  const noApplication = (req: Request) =>
    new AppError(404, { error: 'not_found', error_description: `No application ${String(req.params.clientId).slice(0, 100)}` });
  async function person(req: Request) {
    const found = await admin.person(String(req.params.id));
    if (!found) throw new AppError(404, { error: 'not_found', error_description: `No person ${String(req.params.id).slice(0, 100)}` });
    return found;
  }
  /** The operator's client that holds the token. */
  const operator = (req: Request, res: Response): Operator => {
    const { clientId } = res.locals.oauthGrant as AccessGrant;
    return { actor: `client:${clientId}`, name: clientId, clientId, address: displayAddress(req) };
  };
  const change = (work: (userId: string, by: Operator) => Promise<void>) => async (req: Request, res: Response) => {
    await work((await person(req)).id, operator(req, res));
    res.status(204).end();
  };

  return {
    /** GET /admin/api/people?q&limit&after: email or name starting with q, in id order. */
    async listPeople(req: Request, res: Response): Promise<void> {
      const { q, after, limit } = readQuery(ADMIN_QUERIES.people, req);
      noStore(res).json(await admin.people(q, after, limit));
    },

    /** GET /admin/api/people/:id: the person, with their second factors. */
    async showPerson(req: Request, res: Response): Promise<void> {
      noStore(res).json(await person(req));
    },

    /** POST /admin/api/people/:id/disable and /enable: disabling ends every session and token now. */
    setDisabled: (disabled: boolean) => change((userId, by) => admin.setDisabled(userId, disabled, by)),
    /** DELETE /admin/api/people/:id/sessions */
    endSessions: change((userId, by) => admin.endSessions(userId, by)),
    /** DELETE /admin/api/people/:id/factors */
    resetFactors: change((userId, by) => admin.resetFactors(userId, by)),

    /** GET /admin/api/people/:id/applications: what the person allowed. */
    async applications(req: Request, res: Response): Promise<void> {
      noStore(res).json({ applications: await admin.applications((await person(req)).id) });
    },

    /** DELETE /admin/api/people/:id/applications/:clientId: the consent forgotten, the tokens ended. */
    async revokeApplication(req: Request, res: Response): Promise<void> {
      const { id } = await person(req);
      const clientId = String(req.params.clientId);
      if (!(await admin.revokeApplication(id, clientId, operator(req, res)))) {
        throw new AppError(404, { error: 'not_found', error_description: `No connected application ${clientId.slice(0, 100)}` });
      }
      res.status(204).end();
    },

    /** DELETE /admin/api/people/:id */
    remove: change((userId, by) => admin.remove(userId, by)),

    /** GET /admin/api/people/:id/sessions: the signed-in browsers, most recently used first. */
    async sessions(req: Request, res: Response): Promise<void> {
      const { limit } = readQuery(ADMIN_QUERIES.sessions, req);
      const found = await admin.sessions((await person(req)).id, limit);
      noStore(res).json({
        sessions: found.sessions.map((session) => ({
          handle: session.handle,
          device: session.device,
          address: session.address,
          signed_in_at: session.signedInAt?.toISOString() ?? null,
          last_seen_at: session.lastSeenAt.toISOString(),
        })),
        more: found.more,
      });
    },

    /** DELETE /admin/api/people/:id/sessions/:handle: that browser signed out now. */
    async endSession(req: Request, res: Response): Promise<void> {
      if (!(await admin.endSession((await person(req)).id, String(req.params.handle), operator(req, res)))) {
        throw new AppError(404, { error: 'not_found', error_description: 'No such session' });
      }
      res.status(204).end();
    },

    /** POST /admin/api/people/:id/reset-link: the forgotten-password mail, with its limits. */
    async sendResetLink(req: Request, res: Response): Promise<void> {
      const found = await person(req);
      if (!(await admin.sendResetLink(found, operator(req, res)))) throw invalid('The person has no email address to send a link to');
      res.status(202).end();
    },

    /** POST /admin/api/people/:id/unlock: the account's failed sign-ins forgotten. */
    async unlock(req: Request, res: Response): Promise<void> {
      noStore(res).json({ failures_forgotten: await admin.unlock(await person(req), operator(req, res)) });
    },

    /** GET /admin/api/applications?q&limit&after: name or client id starting with q, in id order. */
    async listApplications(req: Request, res: Response): Promise<void> {
      const { q, after, limit } = readQuery(ADMIN_QUERIES.applications, req);
      noStore(res).json(await admin.findApplications(q, after, limit));
    },

    /** POST /admin/api/applications: an RFC 7591 registration, owned by no person; the secret is in this answer only. */
    async registerApplication(req: Request, res: Response): Promise<void> {
      noStore(res)
        .status(201)
        .json(await admin.registerApplication(req.body, operator(req, res)));
    },

    /** GET /admin/api/applications/:clientId: the registration under RFC 7591's names. */
    async showApplication(req: Request, res: Response): Promise<void> {
      const found = await admin.application(String(req.params.clientId));
      if (!found) throw noApplication(req);
      noStore(res).json(found);
    },

    /** PATCH /admin/api/applications/:clientId: client_name, client_uri, redirect_uris, grant_types. */
    async changeApplication(req: Request, res: Response): Promise<void> {
      const body = req.body as Record<string, unknown>;
      const other = Object.keys(body ?? {}).filter((name) => !(CHANGEABLE_METADATA as readonly string[]).includes(name));
      if (typeof body !== 'object' || body === null || Array.isArray(body) || other.length > 0 || Object.keys(body).length === 0) {
        throw new RegistrationError('invalid_client_metadata', `Send one or more of ${CHANGEABLE_METADATA.join(', ')} (and nothing else)`);
      }
      const changed = await admin.changeApplication(String(req.params.clientId), body, operator(req, res));
      // Deleted before it could be read back (a DELETE racing this change): gone, as for any other.
      const now = changed && (await admin.application(changed.client_id));
      if (!now) throw noApplication(req);
      noStore(res).json(now);
    },

    /** DELETE /admin/api/applications/:clientId: with every token, code and consent issued to it. */
    async removeApplication(req: Request, res: Response): Promise<void> {
      if (!(await admin.removeApplication(String(req.params.clientId), operator(req, res)))) throw noApplication(req);
      res.status(204).end();
    },

    /** POST /admin/api/applications/:clientId/secret: a new secret, in this answer only. */
    async rotateSecret(req: Request, res: Response): Promise<void> {
      const clientId = String(req.params.clientId);
      // A public client has no secret: a refusal, which the admin API's presenter words.
      const secret = await admin.rotateSecret(clientId, operator(req, res));
      if (!secret) throw noApplication(req);
      noStore(res).json({ client_id: clientId, client_secret: secret });
    },

    /** GET /admin/api/applications/:clientId/grants?limit&after: who has granted it what. */
    async grantsOf(req: Request, res: Response): Promise<void> {
      const clientId = String(req.params.clientId);
      if (!(await admin.application(clientId))) throw noApplication(req);
      const { after, limit } = readQuery(ADMIN_QUERIES.grants, req);
      noStore(res).json(await admin.grantsOf(clientId, after, limit));
    },

    /** GET /admin/api/keys: the published signing keys and their state. */
    async keys(_req: Request, res: Response): Promise<void> {
      noStore(res).json({ keys: await admin.keys() });
    },

    /** POST /admin/api/keys/rotate: new keys current; the old ones published until what they signed expires. */
    async rotateKeys(req: Request, res: Response): Promise<void> {
      await admin.rotateKeys(operator(req, res));
      noStore(res).json({ keys: await admin.keys() });
    },

    /** GET /admin/api/events?person&application&kind&since&until&limit&after: newest first. */
    async events(req: Request, res: Response): Promise<void> {
      const { person: userId, application: clientId, kind, since, until, limit, after } = readQuery(ADMIN_QUERIES.events, req);
      const cursor = after === undefined ? undefined : readEventsCursor(after);
      if (cursor === null) throw invalid('after must be the next of an earlier page');
      const found = await admin.events({ userId, clientId, kind, since, until, after: cursor }, limit);
      noStore(res).json({
        events: found.events.map((event) => ({
          id: event._id,
          at: event.at.toISOString(),
          kind: event.kind,
          person: event.userId ?? null,
          address: event.address,
          detail: event.detail ?? null,
          actor: event.actor ?? null,
          application: event.clientId ?? null,
        })),
        next: found.next,
      });
    },

    /** GET /admin/api/exchange-policies?limit&after */
    async exchangePolicies(req: Request, res: Response): Promise<void> {
      const { limit, after } = readQuery(AGENT_QUERIES.policies, req);
      noStore(res).json(await admin.exchangePolicies(after, limit));
    },

    /** PUT /admin/api/exchange-policies: the client's rule for the audience, set (or replaced). */
    async setExchangePolicy(req: Request, res: Response): Promise<void> {
      noStore(res).json(await admin.setExchangePolicy(req.body, operator(req, res)));
    },

    /** DELETE /admin/api/exchange-policies?client_id&audience */
    async removeExchangePolicy(req: Request, res: Response): Promise<void> {
      const { client_id: clientId, audience } = readQuery(AGENT_QUERIES.policy, req);
      if (clientId === undefined || audience === undefined) throw invalid('client_id and audience name the rule');
      if (!(await admin.removeExchangePolicy(clientId, audience, operator(req, res))))
        throw new AppError(404, {
          error: 'not_found',
          error_description: `No rule for ${clientId.slice(0, 100)} to ${audience.slice(0, 100)}`,
        });
      res.status(204).end();
    },

    /** GET /admin/api/document-clients?q&limit&after: those whose URL starts with q. */
    async documentClients(req: Request, res: Response): Promise<void> {
      const { q, limit, after } = readQuery(AGENT_QUERIES.documentClients, req);
      noStore(res).json(await admin.documentClients(q, after, limit));
    },

    /** GET /admin/api/document-hosts?limit&after */
    async documentHosts(req: Request, res: Response): Promise<void> {
      const { limit, after } = readQuery(AGENT_QUERIES.hosts, req);
      noStore(res).json(await admin.documentHosts(after, limit));
    },

    /** PUT /admin/api/document-hosts/:host { rule: allow | block } */
    async ruleDocumentHost(req: Request, res: Response): Promise<void> {
      const host = hostParam(req);
      const { rule } = readBody(DOCUMENT_HOST_RULE.fields, DOCUMENT_HOST_RULE.required, req.body);
      noStore(res).json(await admin.ruleDocumentHost(host, rule!, operator(req, res)));
    },

    /** DELETE /admin/api/document-hosts/:host: CLIENT_ID_DOCUMENTS decides for it again. */
    async forgetDocumentHost(req: Request, res: Response): Promise<void> {
      const host = hostParam(req);
      if (!(await admin.forgetDocumentHost(host, operator(req, res))))
        throw new AppError(404, { error: 'not_found', error_description: `No rule for ${host}` });
      res.status(204).end();
    },
  };
}

/** A document host as the path names it, lower case; invalid_request when it is none. */
function hostParam(req: Request): string {
  const host = hostOf(String(req.params.host));
  if (!host) throw invalid('host must be a host name, with its port when not 443');
  return host;
}
