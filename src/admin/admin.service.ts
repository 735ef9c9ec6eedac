// What an operator can do to people, and read of what happened, for both the admin API and the
// console's pages: each change is an event in the person's activity naming who made it.
import type { ActivityKind, ActivityLog, EventFilter } from '../account/activity.service';
import type { Accounts } from '../account/account.service';
import { NotFoundError } from '../common/errors';
import * as factorsService from '../factors/factors.service';
import * as grantsService from '../oauth/grants/grants.service';
import type { SessionEndedHook } from '../session/session.middleware';
import * as sessionService from '../session/session.service';
import * as usersService from '../users/users.service';
import type { UserRecord } from '../users/users.types';

/** Who acts: an operator's client (`client:<id>`) or an admin person (`person:<id>`), and from where. */
export interface Operator {
  actor: string;
  /** Named in the event's detail: the client id, or the admin's email. */
  name: string;
  address: string;
  clientId?: string;
}

export const personView = (user: UserRecord) => ({
  id: user._id,
  email: user.email ?? null,
  emailVerified: user.emailVerified === true,
  firstName: user.firstName ?? null,
  lastName: user.lastName ?? null,
  roles: usersService.rolesOf(user),
  disabled: user.disabled === true,
});

/** An events cursor: the last event's time and id, opaque to callers. */
export const eventsCursor = (at: Date, id: string): string => Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');

/** The cursor read back; null when it is not one this server made. */
export function readEventsCursor(value: string): EventFilter['after'] | null {
  try {
    const [at, id] = JSON.parse(Buffer.from(value, 'base64url').toString()) as [unknown, unknown];
    const date = new Date(String(at));
    return typeof id === 'string' && typeof at === 'string' && !Number.isNaN(date.getTime()) ? { at: date, id } : null;
  } catch {
    return null;
  }
}

export function createAdministration(
  activity: ActivityLog,
  ends: { accessEnded: usersService.AccessEndedHook; sessionEnded: SessionEndedHook },
  accounts: Pick<Accounts, 'requestReset'>,
) {
  const record = (userId: string, kind: ActivityKind, what: string, by: Operator) =>
    activity.record(userId, kind, { address: by.address, detail: `${what}, by ${by.name}`, actor: by.actor, clientId: by.clientId });

  return {
    /** People whose email or name starts with `q`, in id order; `next` is the `after` of the next page. */
    async people(q: string | undefined, after: string | undefined, limit: number) {
      const found = await usersService.search(q, after, limit + 1);
      const shown = found.slice(0, limit);
      return { people: shown.map(personView), next: found.length > limit ? shown[shown.length - 1]._id : null };
    },

    /** One person with their second factors; null when there is none. */
    async person(id: string) {
      const user = await usersService.findById(id);
      if (!user) return null;
      const factors = await factorsService.secondFactors(user._id);
      return { ...personView(user), factors: { totp: factors?.totp === true, passkeys: factors?.passkeys === true } };
    },

    /** Disabling ends every session and token now. */
    async setDisabled(userId: string, disabled: boolean, by: Operator): Promise<void> {
      await usersService.setDisabled(userId, disabled, ends.accessEnded);
      await record(userId, disabled ? 'disabled' : 'enabled', disabled ? 'account disabled' : 'account enabled', by);
    },

    /** Every browser signed out now (applications told by back-channel logout). */
    async endSessions(userId: string, by: Operator): Promise<void> {
      for (const ended of await sessionService.endOtherSessions(userId, '')) await ends.sessionEnded(ended);
      await record(userId, 'sessions-ended', 'every browser signed out', by);
    },

    /** The app and passkeys removed: the person enrols again. */
    async resetFactors(userId: string, by: Operator): Promise<void> {
      await factorsService.removeFactorsSince(userId, new Date(0));
      await record(userId, 'factor-removed', 'every second factor reset', by);
    },

    /** The applications the person allowed (a page of them). */
    applications: (userId: string) => grantsService.listConnected(userId),

    /** Forgets the person's consent for the client and ends its tokens; false when there was none. */
    async revokeApplication(userId: string, clientId: string, by: Operator): Promise<boolean> {
      try {
        await grantsService.revoke(userId, clientId);
      } catch (err) {
        if (err instanceof NotFoundError) return false;
        throw err;
      }
      await record(userId, 'application-revoked', `access of ${clientId} ended`, by);
      return true;
    },

    /** Mails the person a reset link (the forgotten-password mail, with its limits). */
    async sendResetLink(user: { id: string; email: string | null }, by: Operator): Promise<boolean> {
      if (!user.email) return false;
      await accounts.requestReset(user.email, { shown: by.address, address: by.address, device: `console, by ${by.name}` });
      return true;
    },

    /** Deletes the person: everything issued to them ends. The event stays in the log. */
    async remove(userId: string, by: Operator): Promise<void> {
      await usersService.remove(userId, ends.accessEnded);
      await record(userId, 'deleted', 'account deleted', by);
    },

    /** Events newest first; `next` is the cursor of the next page. */
    async events(filter: EventFilter, limit: number) {
      const found = await activity.search(filter, limit + 1);
      const shown = found.slice(0, limit);
      const last = shown[shown.length - 1];
      return { events: shown, next: found.length > limit ? eventsCursor(last.at, last._id) : null };
    },
  };
}

export type Administration = ReturnType<typeof createAdministration>;
