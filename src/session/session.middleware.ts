// Sessions for the browser routes only (login, logout, home, sign-in providers, authorize and consent,
// client registration by session). Cookie `sid`: httpOnly, SameSite=Lax, Secure in production.
// Signing in and out changes the HTTP session itself, so those two live here, next to it.
import type { Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import { randomToken } from '../common/crypto';
import { clientAddress } from '../common/rate-limit';
import { principal } from '../common/guards';
import { UnauthorizedError } from '../common/errors';
import type { Config } from '../config';
import type { UserRecord } from '../users/users.types';
import { currentUser, type EndedSession } from './session.service';
import { MongoSessionStore } from './session.store';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    /** When the person signed in (ms since the epoch): OpenID Connect's auth_time. */
    authTime?: number;
    /** OpenID Connect's `sid`: names this session to applications (never the cookie's own id). */
    oidcSid?: string;
    csrfToken?: string;
    /** The browser that signed in (its User-Agent, shortened) and its address: the account page's list. */
    device?: string;
    address?: string;
  }
}

export type { EndedSession } from './session.service';

/** A person signed in to a browser (the account's security activity): from where, and how. */
export type SignedInHook = (userId: string, where: { address: string; detail: string }) => Promise<void>;

/** What must happen when a signed-in session ends (back-channel logout); wired in src/wiring.ts. */
export type SessionEndedHook = (ended: EndedSession) => Promise<void>;

const MAX_DEVICE_LENGTH = 200;

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
  req.session.oidcSid = randomToken(16);
  req.session.device = (req.get('User-Agent') ?? '').slice(0, MAX_DEVICE_LENGTH);
  req.session.address = clientAddress(req);
  if (remember) req.session.cookie.maxAge = REMEMBER_ME_MS;
  // Stored before the redirect goes out: express-session sends the headers before its own save
  // finishes, and the next request may reach another instance straight away.
  await settled((done) => req.session.save(done));
}

/** Ends the session; returns it when someone was signed in, for what must follow (SessionEndedHook). */
export async function signOut(req: Request): Promise<EndedSession | null> {
  const { userId, oidcSid } = req.session;
  await settled((done) => req.session.destroy(done));
  return userId && oidcSid ? { userId, sid: oidcSid } : null;
}

/**
 * A signed-in person or no further. Without one, a page sends the browser to sign in and come back
 * (302 to come back to this page; 303 after a form, to come back to `formPage`), and an API answers 401.
 */
export function requireSession(otherwise: 'sign-in' | 'unauthorized' = 'sign-in', formPage = '/home'): RequestHandler {
  return async (req, res, next) => {
    const person = await currentUser(req.session);
    if (person) {
      res.locals.person = person;
      return next();
    }
    if (otherwise === 'unauthorized') throw new UnauthorizedError();
    const isPage = req.method === 'GET' || req.method === 'HEAD';
    const back = isPage ? req.originalUrl : formPage;
    // /home is where signing in leads anyway.
    res.redirect(isPage ? 302 : 303, back === '/home' ? '/login' : `/login?return_to=${encodeURIComponent(back)}`);
  };
}

/** The person requireSession let through (or, on the client routes, the access token's user). */
export const signedInPerson = (res: Response): UserRecord => principal(res, 'person');
