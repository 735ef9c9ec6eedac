// Who is signed in to a browser session, and where to send them after signing in.
import type { SessionData } from 'express-session';
import * as usersService from '../users/users.service';
import type { UserRecord } from '../users/users.types';
import { createHash } from 'node:crypto';
import { deviceName } from '../common/user-agent';
import { removeSessionOf, removeSessionsOf, sessionsOf, SLOTS_PER_ACCOUNT, takeSlot, type StoredSession } from './session.store';

/** A signed-in session that ended (sign-out, RP-initiated logout): who, and its OpenID Connect `sid`. */
export interface EndedSession {
  userId: string;
  sid: string;
}

/** A signed-in browser as the account page shows it. */
export interface SessionSummary {
  /** Names the session in forms; never the cookie's id, which would sign its holder in. */
  handle: string;
  device: string;
  address: string;
  signedInAt: Date | null;
  lastSeenAt: Date;
  current: boolean;
}

/** A deleted user or a new password signs the user out of every browser, on every instance. */
export const signOutEverywhere = (userId: string): Promise<void> => removeSessionsOf(userId);

/**
 * The signed-in user, or null (a session whose user was deleted or disabled counts as signed out). Read
 * through the users cache: a change is seen at once on the instance that made it, within a second elsewhere.
 */
export async function currentUser(users: usersService.UserStore, session: Partial<SessionData> | undefined): Promise<UserRecord | null> {
  const userId = session?.userId;
  const user = userId ? await users.findCurrent(userId) : null;
  return usersService.isActive(user) ? user : null;
}

/** A local path to go back to after signing in; anything else (other hosts included) becomes /home. */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && value.length <= 2048 && /^\/(?![/\\])/.test(value) ? value : '/home';
}

const handleOf = (id: string) => createHash('sha256').update(`session:${id}`).digest('base64url').slice(0, 22);

const endedOf = (userId: string, session: StoredSession): EndedSession[] =>
  session.data.oidcSid ? [{ userId, sid: session.data.oidcSid }] : [];

/** One page of the person's signed-in browsers, most recently used first, and whether more follow. */
export async function listSessions(userId: string, currentId: string, page: number, pageSize: number) {
  const found = await sessionsOf(userId, { skip: page * pageSize, limit: pageSize + 1 });
  const sessions: SessionSummary[] = found.slice(0, pageSize).map((session) => ({
    handle: handleOf(session.id),
    device: deviceName(session.data.device),
    address: session.data.address ?? 'unknown',
    signedInAt: session.data.authTime ? new Date(session.data.authTime) : null,
    lastSeenAt: session.lastSeenAt,
    current: session.id === currentId,
  }));
  return { sessions, more: found.length > pageSize };
}

/**
 * Ends the person's session with this handle (not the current one: that is signing out); what the
 * applications must hear of, or null when no such session was there to end.
 */
export async function endSession(userId: string, currentId: string, handle: string): Promise<EndedSession[] | null> {
  const session = (await sessionsOf(userId)).find((candidate) => handleOf(candidate.id) === handle && candidate.id !== currentId);
  return session && (await removeSessionOf(userId, session.id)) ? endedOf(userId, session) : null;
}

/** The signed-in browsers one account keeps: its slots (session.store.ts). */
export const SESSION_RULES = { perAccount: SLOTS_PER_ACCOUNT } as const;

/** A session with a cookie that outlives the browser ("Keep me signed in"). */
const remembered = (session: StoredSession) => typeof session.data.cookie?.originalMaxAge === 'number';

/** Which session a sign-in past the cap ends first: remember-me ones (they last 30 days), the least recently used first. */
const endedFirst = (a: StoredSession, b: StoredSession) =>
  Number(remembered(b)) - Number(remembered(a)) || a.lastSeenAt.getTime() - b.lastSeenAt.getTime();

/**
 * A signed-in session stored without a slot (the one it picked was held) takes a free one, or, with
 * every slot held, the one of the session to end first (never the one signing in): what must hear
 * of an ended session (EndedSession).
 */
export async function findSlotFor(userId: string, currentId: string): Promise<EndedSession[]> {
  const ended = await takeSlot(userId, currentId, endedFirst);
  return ended.flatMap((session) => endedOf(userId, session));
}

/** Ends every session of the person but the current one. */
export async function endOtherSessions(userId: string, currentId: string): Promise<EndedSession[]> {
  const others = (await sessionsOf(userId)).filter((session) => session.id !== currentId);
  const removed = await Promise.all(others.map((session) => removeSessionOf(userId, session.id)));
  return others.flatMap((session, i) => (removed[i] ? endedOf(userId, session) : []));
}
