// Who is signed in to a browser session, and signing in and out.
import type { Request } from 'express';
import * as usersService from '../users/users.service';
import type { UserRecord } from '../users/users.types';
import { REMEMBER_ME_MS } from './session.middleware';
import { removeSessionsOf } from './session.store';

// A deleted user or a new password signs the user out of every browser, on every instance.
usersService.onAccessEnded(removeSessionsOf);

/** The signed-in user, or null (a session whose user was deleted counts as signed out). */
export async function currentUser(req: Request): Promise<UserRecord | null> {
  const { userId } = req.session;
  return userId ? usersService.findById(userId) : null;
}

/** express-session's callback style as a promise. */
function settled(start: (done: (err?: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) =>
    start((err) => (err ? reject(err instanceof Error ? err : new Error('the session store failed', { cause: err })) : resolve())),
  );
}

/** Starts a signed-in session under a new id (no session fixation); remember-me makes the cookie last 30 days. */
export async function signIn(req: Request, userId: string, remember: boolean): Promise<void> {
  await settled((done) => req.session.regenerate(done));
  req.session.userId = userId;
  if (remember) req.session.cookie.maxAge = REMEMBER_ME_MS;
  // Stored before the redirect goes out: express-session sends the headers before its own save
  // finishes, and the next request may reach another instance straight away.
  await settled((done) => req.session.save(done));
}

export function signOut(req: Request): Promise<void> {
  return settled((done) => req.session.destroy(done));
}

/** A local path to go back to after signing in; anything else (other hosts included) becomes /home. */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && value.length <= 2048 && /^\/(?![/\\])/.test(value) ? value : '/home';
}
