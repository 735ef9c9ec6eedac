// The admin API's people and events (docs/operations.md, "The admin API"): what an operator's
// scripts do to accounts, each change an event in the person's activity naming the client that made
// it. Errors in the OAuth shape ({ error, error_description }), as everywhere a bearer token is the
// credential. Every list pages, at most LIMITS.pageSize at a time.
import type { Request, Response } from 'express';
import { ACTIVITY_KINDS, type ActivityKind, type ActivityLog, type EventFilter } from '../account/activity.service';
import { AppError } from '../common/errors';
import { noStore } from '../common/no-store';
import { displayAddress } from '../common/rate-limit';
import * as factorsService from '../factors/factors.service';
import { LIMITS } from '../oauth/protocol';
import type { AccessGrant } from '../oauth/tokens/tokens.service';
import type { SessionEndedHook } from '../session/session.middleware';
import * as sessionService from '../session/session.service';
import * as usersService from '../users/users.service';
import type { UserRecord } from '../users/users.types';

const invalid = (description: string) => new AppError(400, { error: 'invalid_request', error_description: description });
const MAX_QUERY = 100;

function limitOf(req: Request): number {
  const raw = req.query.limit;
  const limit = raw === undefined ? LIMITS.pageSize : Number(raw);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > LIMITS.pageSize) throw invalid(`limit must be 1 to ${LIMITS.pageSize}`);
  return limit;
}

function text(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > MAX_QUERY)
    throw invalid(`${name} must be one value of 1 to ${MAX_QUERY} characters`);
  return value;
}

function time(req: Request, name: string): Date | undefined {
  const value = text(req, name);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime())) throw invalid(`${name} must be an ISO 8601 date and time`);
  return date;
}

const personView = (user: UserRecord) => ({
  id: user._id,
  email: user.email ?? null,
  emailVerified: user.emailVerified === true,
  firstName: user.firstName ?? null,
  lastName: user.lastName ?? null,
  roles: usersService.rolesOf(user),
  disabled: user.disabled === true,
});

/** An events cursor: the last event's time and id, opaque to callers. */
const cursorOf = (at: Date, id: string) => Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');
function afterOf(value: string | undefined): EventFilter['after'] {
  if (value === undefined) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(value, 'base64url').toString()) as [string, string];
    const date = new Date(at);
    if (typeof id !== 'string' || Number.isNaN(date.getTime())) throw new Error('bad cursor');
    return { at: date, id };
  } catch {
    throw invalid('after must be the next of an earlier page');
  }
}

export function createAdminController(
  activity: ActivityLog,
  ends: { accessEnded: usersService.AccessEndedHook; sessionEnded: SessionEndedHook },
) {
  async function person(req: Request): Promise<UserRecord> {
    const user = await usersService.findById(String(req.params.id));
    if (!user) throw new AppError(404, { error: 'not_found', error_description: `No person ${String(req.params.id).slice(0, 100)}` });
    return user;
  }
  const record = (req: Request, res: Response, userId: string, kind: ActivityKind, detail: string) => {
    const { clientId } = res.locals.oauthGrant as AccessGrant;
    return activity.record(userId, kind, {
      address: displayAddress(req),
      detail: `${detail}, by ${clientId}`,
      actor: `client:${clientId}`,
      clientId,
    });
  };

  return {
    /** GET /admin/api/people?q&limit&after: email or name starting with q, in id order. */
    async listPeople(req: Request, res: Response): Promise<void> {
      const limit = limitOf(req);
      const found = await usersService.search(text(req, 'q'), text(req, 'after'), limit + 1);
      const shown = found.slice(0, limit);
      noStore(res).json({ people: shown.map(personView), next: found.length > limit ? shown[shown.length - 1]._id : null });
    },

    /** GET /admin/api/people/:id: the person, with their second factors. */
    async showPerson(req: Request, res: Response): Promise<void> {
      const user = await person(req);
      const factors = await factorsService.secondFactors(user._id);
      noStore(res).json({ ...personView(user), factors: { totp: factors?.totp === true, passkeys: factors?.passkeys === true } });
    },

    /** POST /admin/api/people/:id/disable and /enable: disabling ends every session and token now. */
    setDisabled: (disabled: boolean) => async (req: Request, res: Response) => {
      const user = await person(req);
      await usersService.setDisabled(user._id, disabled, ends.accessEnded);
      await record(req, res, user._id, disabled ? 'disabled' : 'enabled', disabled ? 'account disabled' : 'account enabled');
      res.status(204).end();
    },

    /** DELETE /admin/api/people/:id/sessions: every browser signed out now (applications told by back-channel). */
    async endSessions(req: Request, res: Response): Promise<void> {
      const user = await person(req);
      for (const ended of await sessionService.endOtherSessions(user._id, '')) await ends.sessionEnded(ended);
      await record(req, res, user._id, 'sessions-ended', 'every browser signed out');
      res.status(204).end();
    },

    /** DELETE /admin/api/people/:id/factors: the app and passkeys removed; the person enrols again. */
    async resetFactors(req: Request, res: Response): Promise<void> {
      const user = await person(req);
      await factorsService.removeFactorsSince(user._id, new Date(0));
      await record(req, res, user._id, 'factor-removed', 'every second factor reset');
      res.status(204).end();
    },

    /** GET /admin/api/events?person&application&kind&since&until&limit&after: newest first. */
    async events(req: Request, res: Response): Promise<void> {
      const limit = limitOf(req);
      const kind = text(req, 'kind');
      if (kind !== undefined && !ACTIVITY_KINDS.includes(kind as ActivityKind))
        throw invalid(`kind must be one of ${ACTIVITY_KINDS.join(', ')}`);
      const filter: EventFilter = {
        userId: text(req, 'person'),
        clientId: text(req, 'application'),
        kind: kind as ActivityKind | undefined,
        since: time(req, 'since'),
        until: time(req, 'until'),
        after: afterOf(text(req, 'after')),
      };
      const found = await activity.search(filter, limit + 1);
      const shown = found.slice(0, limit);
      const last = shown[shown.length - 1];
      noStore(res).json({
        events: shown.map((event) => ({
          id: event._id,
          at: event.at.toISOString(),
          kind: event.kind,
          person: event.userId,
          address: event.address,
          detail: event.detail ?? null,
          actor: event.actor ?? null,
          application: event.clientId ?? null,
        })),
        next: found.length > limit ? cursorOf(last.at, last._id) : null,
      });
    },
  };
}
