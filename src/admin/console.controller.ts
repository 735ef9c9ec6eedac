// The operator's console (docs/operations.md, "The console"), for people with the admin role whose
// session gave a second factor in the last 10 minutes: anyone else with a session gets 403; an admin
// whose session is older or has one factor goes through the journey's step-up and comes back to the
// page asked for; an admin without a second factor is asked to add one first. Every change needs the
// CSRF token, is an event naming the admin, and answers with a redirect back to the page.
import type { NextFunction, Request, Response } from 'express';
import { ACTIVITY_KINDS, type ActivityKind } from '../account/activity.service';
import { noStore } from '../common/no-store';
import { displayAddress, TooManyRequestsError } from '../common/rate-limit';
import type { Config } from '../config';
import * as clientsService from '../oauth/clients/clients.service';
import * as factorsService from '../factors/factors.service';
import { keyRingOptions, listPublished, rotate } from '../oauth/oidc/signing-keys.service';
import { LIMITS } from '../oauth/protocol';
import { signedInPerson } from '../session/session.middleware';
import type { Journey } from '../sign-in/journey.service';
import * as usersService from '../users/users.service';
import type { Csrf } from '../web/csrf';
import { HTML_CONTENT_TYPE } from '../web/html';
import { pageError, tooManyPage } from '../web/layout';
import { readEventsCursor, type Administration, type Operator } from './admin.service';
import { applicationsPage, eventsPage, keysPage, peoplePage, personPage } from './console.page';

const NOTICES: Record<string, string> = {
  'sessions-ended': 'Every browser of this person is signed out.',
  'factors-reset': 'The second factors are removed: the person enrols again after signing in with the password.',
  disabled: 'The account is disabled: its sessions and tokens have ended.',
  enabled: 'The account is enabled again.',
  rotated: 'New keys are current. Every instance signs with them within a minute.',
  revoked: "The application's access has ended.",
  'reset-sent': 'A reset link is on its way to this person.',
  deleted: 'The person is deleted.',
};

const query = (req: Request, name: string): string => {
  const value = req.query[name];
  return typeof value === 'string' ? value.slice(0, 100) : '';
};
const notice = (req: Request): string | undefined => NOTICES[query(req, 'done')];

export function createConsoleController(deps: { config: Config; csrf: Csrf; journey: Journey; admin: Administration }) {
  const { config, csrf, journey, admin } = deps;
  const send = (res: Response, body: string) => noStore(res).type(HTML_CONTENT_TYPE).send(body);
  const operator = (req: Request, res: Response): Operator => {
    const person = signedInPerson(res);
    return { actor: `person:${person._id}`, name: person.email ?? person._id, address: displayAddress(req) };
  };
  async function personOf(req: Request) {
    const found = await admin.person(String(req.params.id));
    if (!found) throw pageError(404, 'No such person', 'Nobody here has that id.');
    return found;
  }
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
        throw pageError(403, 'Operators only', 'The console is for people with the admin role.');
      }
      if (journey.freshlyVerified(req)) return next();
      if (!(await factorsService.secondFactors(person._id))) {
        throw pageError(
          403,
          'Second factor needed',
          'The console needs a second factor: add an authenticator app or a passkey on your account page first.',
        );
      }
      // The step-up comes back to the page (a form's page, for a form).
      const back = req.method === 'GET' ? req.originalUrl : '/admin/people';
      await journey.stepUp(req, res, { userId: person._id, returnTo: back });
    },

    home: (_req: Request, res: Response) => res.redirect(302, '/admin/people'),

    async people(req: Request, res: Response): Promise<void> {
      const q = query(req, 'q');
      const page = await admin.people(q || undefined, query(req, 'after') || undefined, LIMITS.pageSize);
      const nextHref = page.next ? `/admin/people?${new URLSearchParams({ ...(q ? { q } : {}), after: page.next }).toString()}` : null;
      send(
        res,
        peoplePage({
          q,
          notice: notice(req),
          next: nextHref,
          people: page.people.map((person) => ({ ...person, name: [person.firstName, person.lastName].filter(Boolean).join(' ') })),
        }),
      );
    },

    async person(req: Request, res: Response): Promise<void> {
      const person = await personOf(req);
      const [applications, events] = await Promise.all([admin.applications(person.id), admin.events({ userId: person.id }, 10)]);
      send(
        res,
        personPage({
          ...person,
          name: [person.firstName, person.lastName].filter(Boolean).join(' '),
          applications: applications.map((app) => ({ clientId: app.client_id, name: app.name, scope: app.scope })),
          events: events.events.map((event) => ({
            at: event.at,
            kind: event.kind,
            person: event.userId,
            address: event.address,
            detail: event.detail,
          })),
          csrfToken: csrf.token(req, res),
          notice: notice(req),
        }),
      );
    },

    async revokeApplication(req: Request, res: Response): Promise<void> {
      const person = await personOf(req);
      if (!(await admin.revokeApplication(person.id, String(req.params.clientId), operator(req, res)))) {
        throw pageError(404, 'No such application', 'This person has not allowed that application.');
      }
      res.redirect(303, `/admin/people/${person.id}?done=revoked`);
    },

    async sendResetLink(req: Request, res: Response): Promise<void> {
      const person = await personOf(req);
      try {
        await admin.sendResetLink(person, operator(req, res));
      } catch (err) {
        throw err instanceof TooManyRequestsError ? tooManyPage('Too many reset links', 'reset links', err) : err;
      }
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
    enable: change((userId, by) => admin.setDisabled(userId, false, by), 'enabled'),

    async applications(req: Request, res: Response): Promise<void> {
      const found = await clientsService.page(query(req, 'after') || undefined, LIMITS.pageSize + 1);
      const shown = found.slice(0, LIMITS.pageSize);
      const last = shown[shown.length - 1];
      send(
        res,
        applicationsPage({
          applications: shown.map((client) => ({
            clientId: client.client_id,
            name: client.name,
            website: client.website,
            grants: client.grants,
          })),
          next: found.length > LIMITS.pageSize ? `/admin/applications?after=${encodeURIComponent(last.client_id)}` : null,
          providers: config.upstream.providers.map((provider) => ({ id: provider.id, name: provider.name, issuer: provider.issuer })),
        }),
      );
    },

    async keys(req: Request, res: Response): Promise<void> {
      const keys = (await listPublished()).map((key) => ({
        kid: key._id,
        alg: key.alg,
        createdAt: key.createdAt,
        retired: key.retiredAt,
        publishedUntil: key.publishUntil,
      }));
      send(res, keysPage({ keys, csrfToken: csrf.token(req, res), notice: notice(req) }));
    },

    async rotateKeys(_req: Request, res: Response): Promise<void> {
      await rotate(keyRingOptions(config.oauth));
      res.redirect(303, '/admin/keys?done=rotated');
    },

    async events(req: Request, res: Response): Promise<void> {
      const person = query(req, 'person');
      const kind = query(req, 'kind');
      const after = query(req, 'after');
      const cursor = after ? readEventsCursor(after) : undefined;
      const found = await admin.events(
        {
          userId: person || undefined,
          kind: ACTIVITY_KINDS.includes(kind as ActivityKind) ? (kind as ActivityKind) : undefined,
          after: cursor ?? undefined,
        },
        LIMITS.pageSize,
      );
      const nextHref = found.next
        ? `/admin/events?${new URLSearchParams({ ...(person ? { person } : {}), ...(kind ? { kind } : {}), after: found.next }).toString()}`
        : null;
      send(
        res,
        eventsPage({
          person,
          kind,
          kinds: ACTIVITY_KINDS,
          next: nextHref,
          events: found.events.map((event) => ({
            at: event.at,
            kind: event.kind,
            person: event.userId,
            address: event.address,
            detail: event.detail,
          })),
        }),
      );
    },
  };
}
