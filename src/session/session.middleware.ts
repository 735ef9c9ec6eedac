// Sessions for the browser routes only (login, logout, home, sign-in providers, authorize and consent,
// client registration by session). Cookie `sid`: httpOnly, SameSite=Lax, Secure in production.
// Signing in and out changes the HTTP session itself, so those two live here, next to it.
import type { Request, RequestHandler } from 'express';
import session from 'express-session';
import type { Config } from '../config';
import { MongoSessionStore } from './session.store';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    /** When the person signed in (ms since the epoch): OpenID Connect's auth_time. */
    authTime?: number;
    csrfToken?: string;
    /** The state sent to an identity provider, checked once on its callback. */
    providerState?: string;
  }
}

export const REMEMBER_ME_MS = 30 * 24 * 3600 * 1000;

export function createSessionMiddleware(config: Config): RequestHandler {
  return session({
    name: 'sid',
    secret: config.sessionSecret,
    store: new MongoSessionStore(),
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: config.isProduction, path: '/' },
  });
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
  req.session.authTime = Date.now();
  if (remember) req.session.cookie.maxAge = REMEMBER_ME_MS;
  // Stored before the redirect goes out: express-session sends the headers before its own save
  // finishes, and the next request may reach another instance straight away.
  await settled((done) => req.session.save(done));
}

export function signOut(req: Request): Promise<void> {
  return settled((done) => req.session.destroy(done));
}
