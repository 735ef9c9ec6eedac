// The operator's console (docs/operations.md, "The console"), for people with the admin role whose
// session gave a second factor in the last 10 minutes: anyone else with a session gets 403; an admin
// whose session is older or has one factor goes through the journey's step-up and comes back to the
// page asked for; an admin without a second factor is asked to add one first. Every change needs the
// CSRF token, is an event naming the admin, and answers with a redirect back to the page.
import type { NextFunction, Request, Response } from 'express';
import { ACTIVITY_KINDS } from '../account/activity.service';
import { readForm, readQuery } from '../common/request-fields';
import {
  CHANGE_APPLICATION_FORM,
  DELETE_POLICY_FORM,
  DOCUMENT_HOST_FORM,
  EXCHANGE_POLICY_FORM,
  FORGET_HOST_FORM,
  GIVE_ROLE_FORM,
  NEW_APPLICATION_FORM,
} from './console.fields';
import { Refusal } from '../common/refusals';
import { hostOf } from '../oauth/clients/client-documents.service';
import { CONSOLE_QUERIES } from './admin.queries';
import { noStore } from '../common/no-store';
import { displayAddress } from '../common/rate-limit';
import type { Config } from '../config';
import { RegistrationError } from '../oauth/clients/registration.service';
import { CLIENT_AUTH_METHODS, DEFAULT_CLIENT_AUTH_METHOD, GRANT_TYPES, LIMITS, SELF_REGISTRABLE_GRANTS } from '../oauth/protocol';
import { signedInPerson } from '../session/session.middleware';
import type { Journey } from '../sign-in/journey.types';
import * as usersService from '../users/users.service';
import type { Csrf } from '../web/csrf';
import { HTML_CONTENT_TYPE } from '../web/html';
import { pageError } from '../web/layout';
import { readEventsCursor, type Administration, type Operator } from './admin.service';
import {
  agentsPage,
  applicationPage,
  applicationsPage,
  eventsPage,
  keysPage,
  newApplicationPage,
  peoplePage,
  personPage,
  secretPage,
  type RegistrationForm,
} from './console.page';

const NOTICES: Record<string, string> = {
  'sessions-ended': 'Every browser of this person is signed out.',
  'session-ended': 'That browser is signed out.',
  'factors-reset': 'The second factors are removed: the person enrols again after signing in with the password.',
  disabled: 'The account is disabled: its sessions and tokens have ended.',
  enabled: 'The account is enabled again.',
  rotated: 'New keys are current here now; every other instance takes them up within the refresh interval below.',
  revoked: "The application's access has ended.",
  'reset-sent': 'A reset link is on its way to this person.',
  deleted: 'The person is deleted.',
  unlocked: "The person's failed sign-ins are forgotten: they can sign in at once.",
  saved: 'The application is saved.',
  'role-given': 'The role is given: it shows in the next token the person gets.',
  'role-taken': 'The role is taken away: it is gone from the next token the person gets.',
  'application-deleted': 'The application is deleted, with every token, code and consent issued to it.',
  'host-ruled': "The host's rule is saved: every instance forgets the documents it kept from it.",
  'host-forgotten': 'The host has no rule any more: CLIENT_ID_DOCUMENTS decides for it.',
  'rule-set': 'The token exchange rule is saved.',
  'rule-deleted': 'The token exchange rule is deleted.',
};

/** The registration form as typed: every field a string, lists one per line, grants as checked. */
function registrationForm(typed: Partial<ReturnType<typeof readNewApplication>>): RegistrationForm {
  const text = (name: Exclude<keyof RegistrationForm, 'grant_types'>) => typed[name] ?? '';
  return {
    client_name: text('client_name'),
    client_uri: text('client_uri'),
    redirect_uris: text('redirect_uris'),
    post_logout_redirect_uris: text('post_logout_redirect_uris'),
    grant_types: typed.grant_types ?? [],
    token_endpoint_auth_method: text('token_endpoint_auth_method') || DEFAULT_CLIENT_AUTH_METHOD,
    jwks_uri: text('jwks_uri'),
    jwks: text('jwks'),
    backchannel_logout_uri: text('backchannel_logout_uri'),
    initiate_login_uri: text('initiate_login_uri'),
    logo_uri: text('logo_uri'),
    policy_uri: text('policy_uri'),
    tos_uri: text('tos_uri'),
  };
}
const readNewApplication = (req: Request) => readForm(NEW_APPLICATION_FORM, req);

const listOf = (typed: string) =>
  typed
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The form as an RFC 7591 registration: empty fields left out, so the registration's defaults apply. */
function registrationOf(form: RegistrationForm): Record<string, unknown> {
  const body: Record<string, unknown> = { token_endpoint_auth_method: form.token_endpoint_auth_method };
  for (const name of [
    'client_name',
    'client_uri',
    'jwks_uri',
    'backchannel_logout_uri',
    'initiate_login_uri',
    'logo_uri',
    'policy_uri',
    'tos_uri',
  ] as const) {
    if (form[name].trim()) body[name] = form[name].trim();
  }
  if (form.grant_types.length) body.grant_types = form.grant_types;
  for (const name of ['redirect_uris', 'post_logout_redirect_uris'] as const) if (form[name].trim()) body[name] = listOf(form[name]);
  if (form.jwks.trim()) {
    try {
      body.jwks = JSON.parse(form.jwks) as unknown;
    } catch {
      throw new RegistrationError('invalid_client_metadata', 'The JWK Set is not JSON');
    }
  }
  return body;
}

/** A console page that refuses, with the ways on from it (console.routes.ts makes it no-store, as every console page). */
const consoleError = (status: number, title: string, message: string, links: { href: string; label: string }[]) =>
  pageError(status, title, message, { links });

/** A registration value as a person reads it: times as dates, lists and flags in words, a key set by its size. */
function readable(name: string, value: unknown): string {
  if (typeof value === 'number' && name.endsWith('_at'))
    return value === 0 ? 'never' : `${new Date(value * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.map(String).join(', ');
  if (name === 'jwks' && typeof value === 'object' && value !== null && Array.isArray((value as { keys?: unknown }).keys))
    return `${(value as { keys: unknown[] }).keys.length} public key(s)`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The notice of a change just made (`done`); none for an unknown one. */
const noticeOf = (done: string | undefined): string | undefined =>
  done !== undefined && Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined;

export function createConsoleController(deps: { config: Config; csrf: Csrf; journey: Journey; admin: Administration }) {
  const { config, csrf, journey, admin } = deps;
  const send = (res: Response, body: string) => noStore(res).type(HTML_CONTENT_TYPE).send(body);
  const operator = (req: Request, res: Response): Operator => {
    const person = signedInPerson(res);
    return { actor: `person:${person._id}`, name: person.email ?? person._id, address: displayAddress(req) };
  };
  async function personOf(req: Request) {
    const found = await admin.person(String(req.params.id));
    if (!found) throw consoleError(404, 'No such person', 'Nobody here has that id.', [{ href: '/admin/people', label: 'People' }]);
    return found;
  }
  /** Events as the pages show them: each person named by their email (issue 50, finding 5). */
  async function eventRows(events: { at: Date; kind: string; userId?: string; clientId?: string; address: string; detail?: string }[]) {
    const names = await admin.namesOf(events.map((event) => event.userId));
    return events.map((event) => ({
      at: event.at,
      kind: event.kind,
      person: event.userId,
      personName: event.userId && names.get(event.userId),
      application: event.clientId,
      address: event.address,
      detail: event.detail,
    }));
  }
  async function applicationOf(req: Request) {
    const found = await admin.application(String(req.params.clientId));
    if (!found)
      throw consoleError(404, 'No such application', 'No application here has that client id.', [
        { href: '/admin/applications', label: 'Applications' },
      ]);
    return found;
  }
  /** The agents page (its three lists, each a page at a time), with an error for a form when there is one. */
  async function showAgents(req: Request, res: Response, status = 200, error?: string): Promise<void> {
    const { q, after, hosts_after: hostsAfter, rules_after: rulesAfter, done } = readQuery(CONSOLE_QUERIES.agents, req);
    const [clients, hosts, rules] = await Promise.all([
      admin.documentClients(q, after, LIMITS.pageSize),
      admin.documentHosts(hostsAfter, LIMITS.pageSize),
      admin.exchangePolicies(rulesAfter, LIMITS.pageSize),
    ]);
    const link = (cursor: Record<string, string>) => `/admin/agents?${new URLSearchParams({ ...(q ? { q } : {}), ...cursor }).toString()}`;
    send(
      res.status(status),
      agentsPage({
        q: q ?? '',
        clients: clients.clients,
        clientsNext: clients.next ? link({ after: clients.next }) : null,
        hosts: hosts.hosts,
        hostsNext: hosts.next ? link({ hosts_after: hosts.next }) : null,
        rules: rules.policies,
        rulesNext: rules.next ? link({ rules_after: rules.next }) : null,
        mode: config.clientDocuments.mode,
        csrfToken: csrf.token(req, res),
        notice: status === 200 ? noticeOf(done) : undefined,
        error,
      }),
    );
  }

  /** The application's page, with an error for its edit form when there is one. */
  async function showApplication(req: Request, res: Response, status = 200, error?: string): Promise<void> {
    const app = await applicationOf(req);
    const { after, done } = readQuery(CONSOLE_QUERIES.application, req);
    const [grants, owner] = await Promise.all([admin.grantsOf(app.client_id, after, LIMITS.pageSize), admin.ownerOf(app.client_id)]);
    const shown: [string, string][] = Object.entries(app)
      .filter(
        ([name]) =>
          ![
            'client_id',
            'client_name',
            'client_uri',
            'redirect_uris',
            'grant_types',
            'token_endpoint_auth_method',
            'registration_client_uri',
          ].includes(name),
      )
      .map(([name, value]) => [name, readable(name, value)]);
    send(
      res.status(status),
      applicationPage({
        clientId: app.client_id,
        name: app.client_name,
        website: app.client_uri ?? '',
        redirectUris: app.redirect_uris,
        grants: app.grant_types,
        authMethod: app.token_endpoint_auth_method,
        details: shown,
        owner,
        allGrants: GRANT_TYPES,
        grantedBy: grants.grants.map((grant) => ({
          personId: grant.person_id,
          email: grant.email,
          scope: grant.scope,
          since: new Date(grant.first_granted_at),
        })),
        next: grants.next ? `/admin/applications/${encodeURIComponent(app.client_id)}?after=${encodeURIComponent(grants.next)}` : null,
        csrfToken: csrf.token(req, res),
        error,
        notice: noticeOf(done),
      }),
    );
  }
  const newApplication = (req: Request, res: Response, form: RegistrationForm, status = 200, error?: string): void => {
    send(
      res.status(status),
      newApplicationPage({
        form,
        grants: SELF_REGISTRABLE_GRANTS,
        authMethods: CLIENT_AUTH_METHODS,
        csrfToken: csrf.token(req, res),
        error,
      }),
    );
  };

  const change = (work: (userId: string, by: Operator) => Promise<void>, done: string) => async (req: Request, res: Response) => {
    const person = await personOf(req);
    await work(person.id, operator(req, res));
    res.redirect(303, `/admin/people/${person.id}?done=${done}`);
  };

  return {
    /** After requireSession: the admin role, and a second factor from the last 10 minutes. */
    async access(req: Request, res: Response, next: NextFunction): Promise<void> {
      const person = signedInPerson(res);
      if (!usersService.rolesOf(person).includes(usersService.ADMIN_ROLE)) {
        throw consoleError(403, 'Operators only', 'The console is for people with the admin role.', [{ href: '/home', label: 'Home' }]);
      }
      // The step-up comes back to the page (a form's page, for a form); the policy says whether one is owed.
      const back = req.method === 'GET' ? req.originalUrl : '/admin/people';
      const owed = await journey.requireFreshSecondFactor(req, res, { userId: person._id, returnTo: back });
      if (owed === 'go-on') return next();
      if (owed === 'no-second-factor') {
        throw consoleError(
          403,
          'Second factor needed',
          'The console needs a second factor: add an authenticator app or a passkey first, then come back.',
          [
            { href: '/account/totp', label: 'Set up an authenticator app' },
            { href: '/account', label: 'Your account (passkeys)' },
          ],
        );
      }
    },

    home: (_req: Request, res: Response) => res.redirect(302, '/admin/people'),

    async people(req: Request, res: Response): Promise<void> {
      const { q, after, done } = readQuery(CONSOLE_QUERIES.people, req);
      const page = await admin.people(q, after, LIMITS.pageSize);
      const nextHref = page.next ? `/admin/people?${new URLSearchParams({ ...(q ? { q } : {}), after: page.next }).toString()}` : null;
      send(
        res,
        peoplePage({
          q: q ?? '',
          notice: noticeOf(done),
          next: nextHref,
          people: page.people.map((person) => ({ ...person, name: [person.firstName, person.lastName].filter(Boolean).join(' ') })),
        }),
      );
    },

    async person(req: Request, res: Response): Promise<void> {
      const { done } = readQuery(CONSOLE_QUERIES.person, req);
      const person = await personOf(req);
      const [applications, events, sessions, roles] = await Promise.all([
        admin.applications(person.id),
        admin.events({ userId: person.id }, 10),
        admin.sessions(person.id, LIMITS.pageSize),
        admin.roles(),
      ]);
      send(
        res,
        personPage({
          ...person,
          name: [person.firstName, person.lastName].filter(Boolean).join(' '),
          applications: applications.map((app) => ({ clientId: app.client_id, name: app.name, scope: app.scope })),
          events: await eventRows(events.events),
          givable: roles.filter((role) => !person.roles.includes(role)),
          claims: Object.entries(person.claims).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]),
          sessions: sessions.sessions,
          moreSessions: sessions.more,
          csrfToken: csrf.token(req, res),
          notice: noticeOf(done),
        }),
      );
    },

    /** Gives a role: admin, or one defined in the admin API (issue 48: only an operator makes an admin). */
    async giveRole(req: Request, res: Response): Promise<void> {
      const { role } = readForm(GIVE_ROLE_FORM, req);
      const person = await personOf(req);
      if (!role || !(await admin.setRole(person.id, role, true, operator(req, res)))) {
        throw consoleError(404, 'No such role', 'That role is not defined here.', [{ href: `/admin/people/${person.id}`, label: 'Back' }]);
      }
      res.redirect(303, `/admin/people/${person.id}?done=role-given`);
    },

    async takeRole(req: Request, res: Response): Promise<void> {
      const person = await personOf(req);
      await admin.setRole(person.id, String(req.params.name), false, operator(req, res));
      res.redirect(303, `/admin/people/${person.id}?done=role-taken`);
    },

    async revokeApplication(req: Request, res: Response): Promise<void> {
      const person = await personOf(req);
      if (!(await admin.revokeApplication(person.id, String(req.params.clientId), operator(req, res)))) {
        throw consoleError(404, 'No such application', 'This person has not allowed that application.', [
          { href: '/admin/people', label: 'People' },
        ]);
      }
      res.redirect(303, `/admin/people/${person.id}?done=revoked`);
    },

    async sendResetLink(req: Request, res: Response): Promise<void> {
      const person = await personOf(req);
      await admin.sendResetLink(person, operator(req, res));
      res.redirect(303, `/admin/people/${person.id}?done=reset-sent`);
    },

    async remove(req: Request, res: Response): Promise<void> {
      const person = await personOf(req);
      await admin.remove(person.id, operator(req, res));
      res.redirect(303, '/admin/people?done=deleted');
    },

    endSessions: change((userId, by) => admin.endSessions(userId, by), 'sessions-ended'),
    resetFactors: change((userId, by) => admin.resetFactors(userId, by), 'factors-reset'),
    disable: change((userId, by) => admin.setDisabled(userId, true, by), 'disabled'),
    async endSession(req: Request, res: Response): Promise<void> {
      const person = await personOf(req);
      if (!(await admin.endSession(person.id, String(req.params.handle), operator(req, res)))) {
        throw consoleError(404, 'No such session', 'That browser is not signed in any more.', [{ href: '/admin/people', label: 'People' }]);
      }
      res.redirect(303, `/admin/people/${person.id}?done=session-ended`);
    },
    async unlock(req: Request, res: Response): Promise<void> {
      const person = await personOf(req);
      await admin.unlock(person, operator(req, res));
      res.redirect(303, `/admin/people/${person.id}?done=unlocked`);
    },
    enable: change((userId, by) => admin.setDisabled(userId, false, by), 'enabled'),

    async applications(req: Request, res: Response): Promise<void> {
      const { q, after, done } = readQuery(CONSOLE_QUERIES.applications, req);
      const found = await admin.findApplications(q, after, LIMITS.pageSize);
      send(
        res,
        applicationsPage({
          q: q ?? '',
          applications: found.applications.map((client) => ({
            clientId: client.client_id,
            name: client.name,
            website: client.website,
            grants: client.grants,
            authMethod: client.token_endpoint_auth_method,
          })),
          next: found.next ? `/admin/applications?${new URLSearchParams({ ...(q ? { q } : {}), after: found.next }).toString()}` : null,
          providers: [
            ...(config.github.credentials
              ? [{ id: 'github', name: 'GitHub', issuer: `${config.github.authorizationUrl} (GITHUB_*)` }]
              : []),
            ...config.upstream.providers.map((provider) => ({ id: provider.id, name: provider.name, issuer: provider.issuer })),
          ],
          notice: noticeOf(done),
        }),
      );
    },

    newApplication: (req: Request, res: Response) => newApplication(req, res, registrationForm({})),

    /** A registration's refusal on the new application's form: the form again, as typed, saying what was refused. */
    registrationRefused(err: unknown, req: Request, res: Response, next: (err: unknown) => void): void {
      if (!(err instanceof RegistrationError)) return next(err);
      newApplication(req, res, registrationForm(readNewApplication(req)), 400, err.message);
    },

    /** A change's refusal on the application's page: the page again, saying what was refused. */
    async changeRefused(err: unknown, req: Request, res: Response, next: (err: unknown) => void): Promise<void> {
      if (!(err instanceof RegistrationError)) return next(err);
      await showApplication(req, res, 400, err.message);
    },

    /** Registers the application as POST /oauth/register would (owned by no person); its secret is shown on this answer only. */
    async register(req: Request, res: Response): Promise<void> {
      const form = registrationForm(readNewApplication(req));
      const registered = await admin.registerApplication(registrationOf(form), operator(req, res));
      send(
        res.status(201),
        secretPage({
          clientId: registered.client_id,
          name: registered.client_name,
          secret: registered.client_secret,
          registrationToken: registered.registration_access_token,
          registered: true,
        }),
      );
    },

    application: (req: Request, res: Response) => showApplication(req, res),

    async changeApplication(req: Request, res: Response): Promise<void> {
      const form = registrationForm(readForm(CHANGE_APPLICATION_FORM, req));
      const clientId = String(req.params.clientId);
      const changes = {
        client_name: form.client_name,
        client_uri: form.client_uri,
        redirect_uris: listOf(form.redirect_uris),
        grant_types: form.grant_types,
      };
      if (!(await admin.changeApplication(clientId, changes, operator(req, res))))
        throw consoleError(404, 'No such application', 'No application here has that client id.', [
          { href: '/admin/applications', label: 'Applications' },
        ]);
      res.redirect(303, `/admin/applications/${encodeURIComponent(clientId)}?done=saved`);
    },

    async rotateSecret(req: Request, res: Response): Promise<void> {
      const app = await applicationOf(req);
      const secret = await admin.rotateSecret(app.client_id, operator(req, res));
      send(res, secretPage({ clientId: app.client_id, name: app.client_name, secret: secret ?? undefined, registered: false }));
    },

    async removeApplication(req: Request, res: Response): Promise<void> {
      const app = await applicationOf(req);
      await admin.removeApplication(app.client_id, operator(req, res));
      res.redirect(303, '/admin/applications?done=application-deleted');
    },

    async keys(req: Request, res: Response): Promise<void> {
      const keys = (await admin.keys()).map((key) => ({
        kid: key.kid,
        alg: key.alg,
        createdAt: new Date(key.created_at),
        retired: key.retired_at ? new Date(key.retired_at) : undefined,
        publishedUntil: key.published_until ? new Date(key.published_until) : undefined,
      }));
      const { done } = readQuery(CONSOLE_QUERIES.keys, req);
      send(
        res,
        keysPage({ keys, refreshSeconds: config.oauth.signingKeysRefresh, csrfToken: csrf.token(req, res), notice: noticeOf(done) }),
      );
    },

    agents: (req: Request, res: Response) => showAgents(req, res),

    async ruleHost(req: Request, res: Response): Promise<void> {
      const { host, rule } = readForm(DOCUMENT_HOST_FORM, req);
      const named = hostOf((host ?? '').trim());
      if (!named) throw new Refusal('invalid', 'Type a host name as in the document’s address, with its port when not 443.');
      if (rule !== 'allow' && rule !== 'block') throw new Refusal('invalid', 'Choose allow or block.');
      await admin.ruleDocumentHost(named, rule, operator(req, res));
      res.redirect(303, '/admin/agents?done=host-ruled');
    },

    async forgetHost(req: Request, res: Response): Promise<void> {
      const named = hostOf(readForm(FORGET_HOST_FORM, req).host ?? '');
      if (!named || !(await admin.forgetDocumentHost(named, operator(req, res))))
        throw consoleError(404, 'No such rule', 'That host has no rule.', [{ href: '/admin/agents', label: 'Agents' }]);
      res.redirect(303, '/admin/agents?done=host-forgotten');
    },

    async setExchangePolicy(req: Request, res: Response): Promise<void> {
      const form = readForm(EXCHANGE_POLICY_FORM, req);
      const optional = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
      await admin.setExchangePolicy(
        {
          client_id: optional(form.client_id),
          audience: optional(form.audience),
          token_type: form.token_type,
          scopes: (form.scopes ?? '').split(/\s+/).filter(Boolean),
          subjects: form.subjects,
          target_client_id: form.token_type === 'id-jag' ? optional(form.target_client_id) : undefined,
        },
        operator(req, res),
      );
      res.redirect(303, '/admin/agents?done=rule-set');
    },

    async removeExchangePolicy(req: Request, res: Response): Promise<void> {
      const { client_id: clientId, audience } = readForm(DELETE_POLICY_FORM, req);
      if (!clientId || !audience || !(await admin.removeExchangePolicy(clientId, audience, operator(req, res))))
        throw consoleError(404, 'No such rule', 'That token exchange rule is not set.', [{ href: '/admin/agents', label: 'Agents' }]);
      res.redirect(303, '/admin/agents?done=rule-deleted');
    },

    /** A refused host rule or exchange rule: the page again, saying what was refused. */
    async agentsRefused(err: unknown, req: Request, res: Response, next: (err: unknown) => void): Promise<void> {
      if (!(err instanceof Refusal)) return next(err);
      await showAgents(req, res, 400, err.message);
    },

    async rotateKeys(req: Request, res: Response): Promise<void> {
      await admin.rotateKeys(operator(req, res));
      res.redirect(303, '/admin/keys?done=rotated');
    },

    async events(req: Request, res: Response): Promise<void> {
      const { person, application, kind, after } = readQuery(CONSOLE_QUERIES.events, req);
      // A cursor that is not one of ours starts at the newest.
      const cursor = after ? readEventsCursor(after) : undefined;
      const found = await admin.events({ userId: person, clientId: application, kind, after: cursor ?? undefined }, LIMITS.pageSize);
      const nextHref = found.next
        ? `/admin/events?${new URLSearchParams({ ...(person ? { person } : {}), ...(application ? { application } : {}), ...(kind ? { kind } : {}), after: found.next }).toString()}`
        : null;
      send(
        res,
        eventsPage({
          person: person ?? '',
          application: application ?? '',
          kind: kind ?? '',
          kinds: ACTIVITY_KINDS,
          next: nextHref,
          events: await eventRows(found.events),
        }),
      );
    },
  };
}
