// Who is signed in to a browser session, and where to send them after signing in.
import type { SessionData } from 'express-session';
import * as usersService from '../users/users.service';
import type { UserRecord } from '../users/users.types';
import { removeSessionsOf } from './session.store';

/** A deleted user or a new password signs the user out of every browser, on every instance. */
export const signOutEverywhere = (userId: string): Promise<void> => removeSessionsOf(userId);

/** The signed-in user, or null (a session whose user was deleted counts as signed out). */
export async function currentUser(session: Partial<SessionData> | undefined): Promise<UserRecord | null> {
  const userId = session?.userId;
  return userId ? usersService.findById(userId) : null;
}

/** A local path to go back to after signing in; anything else (other hosts included) becomes /home. */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && value.length <= 2048 && /^\/(?![/\\])/.test(value) ? value : '/home';
}
