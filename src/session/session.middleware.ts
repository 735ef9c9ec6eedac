// Sessions for the browser routes only (login, logout, home, sign-in providers, authorize and consent,
// client registration by session). Cookie `sid` (`__Host-sid` over https, web/cookies.ts): httpOnly,
// SameSite=Lax, Secure over https and in production.
// This file and the sign-in interaction (sign-in/interaction.ts) are the only readers and writers of
// `req.session`: everyone else asks through the functions below. Who a session belongs to is changed
// only by the interaction, through regenerateSession and saveSession; signing out lives here.
import type { Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import { randomToken } from '../common/crypto';
import { principal } from '../common/guards';
import { UnauthorizedError } from '../common/errors';
import type { Config } from '../config';
import { browserCookies } from '../web/cookies';
import type { UserRecord } from '../users/users.types';
import type { UserStore } from '../users/users.service';
import { currentUser, type EndedSession } from './session.service';
import { MongoSessionStore, needsSlot, retireOnSave, wasStored } from './session.store';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
    /** When the person signed in (ms since the epoch): OpenID Connect's auth_time. */
    authTime?: number;
    /** How the person signed in (RFC 8176): `pwd`, `otp`, `hwk`/`swk`, `mfa`, `fed`. */
    amr?: string[];
    /** OpenID Connect's `sid`: names this session to applications (never the cookie's own id). */
    oidcSid?: string;
    csrfToken?: string;
    /** The browser that signed in (its User-Agent, shortened) and its address: the account page's list. */
    device?: string;
    address?: string;
  }
}

export type { EndedSession } from './session.service';

/** What must happen when a signed-in session ends (back-channel logout); wired in src/wiring.ts. */
export type SessionEndedHook = (ended: EndedSession) => Promise<void>;

export const REMEMBER_ME_MS = 30 * 24 * 3600 * 1000;

/** The session cookie's name before its https prefix (web/cookies.ts). */
export const SESSION_COOKIE = 'sid';

/** The app's people, handed to each request by its session middleware (the app's one users cache). */
const PEOPLE = Symbol('people');
/** The session cookie's name on this app (web/cookies.ts), for signing out. */
const COOKIE_NAME = Symbol('session cookie');
type WithPeople = Request & { [PEOPLE]?: UserStore; [COOKIE_NAME]?: string };

/** The session middleware of one app: whom a session belongs to is read through `users`, the app's store. */
export function createSessionMiddleware(config: Config, users: UserStore): RequestHandler {
  const cookies = browserCookies(config);
  const name = cookies.name(SESSION_COOKIE);
  const sessions = session({
    name,
    secret: config.sessionSecret,
    store: new MongoSessionStore(),
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: cookies.secure, path: '/' },
  });
  return (req, res, next) => {
    (req as WithPeople)[PEOPLE] = users;
    (req as WithPeople)[COOKIE_NAME] = name;
    return sessions(req, res, next);
  };
}

/** The person the request's session belongs to, or null (signed out, or the person was deleted or disabled). */
export function sessionPerson(req: Request): Promise<UserRecord | null> {
  const users = (req as WithPeople)[PEOPLE];
  if (!users) throw new Error('no session middleware runs before this route');
  return currentUser(users, req.session);
}

/** The id of the person the session was signed in as (sessionPerson says whether they still may be), or undefined. */
export const sessionUserId = (req: Request): string | undefined => req.session?.userId;

/** When and how the session's person signed in: OpenID Connect's auth_time, amr and sid. */
export function sessionSignIn(req: Request): { authTime?: Date; amr?: string[]; sid?: string } {
  const { authTime, amr, oidcSid } = req.session ?? {};
  return { authTime: authTime ? new Date(authTime) : undefined, amr, sid: oidcSid };
}

/** The session's id: the browser's own list of sessions names it "this browser". */
export const sessionId = (req: Request): string => req.sessionID;

/** The CSRF token of a signed-in session (web/csrf.ts): the one it holds, made on first use (saved with the session). */
export const sessionCsrf = {
  signedIn: (req: Request): boolean => sessionUserId(req) !== undefined,
  held: (req: Request): string | undefined => req.session?.csrfToken,
  ensure(req: Request): string {
    req.session.csrfToken ??= randomToken();
    return req.session.csrfToken;
  },
};

/** express-session's callback style as a promise. */
function settled(start: (done: (err?: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) =>
    start((err) => (err ? reject(err instanceof Error ? err : new Error('the session store failed', { cause: err })) : resolve())),
  );
}

/**
 * A new session id for this browser, its data empty: no session fixation. Only a session this request
 * made (none was found for the cookie it sent) keeps its id, which nobody else was given; one read
 * from the store is replaced whatever it holds now.
 * The old id is deleted just before the new one is first stored (session.store.ts), which
 * the callers do before answering.
 */
export async function regenerateSession(req: Request): Promise<void> {
  if (!wasStored(req.session)) return;
  retireOnSave(req, req.sessionID);
  req.sessionStore.generate(req);
  return Promise.resolve();
}

/** The signed-in session was stored without one of its person's slots (the one it picked was held). */
export const sessionNeedsSlot = (req: Request): boolean => needsSlot(req.session);

/**
 * Stores the session now: express-session sends the headers before its own save finishes, and the
 * next request may reach another instance straight away.
 */
export const saveSession = (req: Request): Promise<void> => settled((done) => req.session.save(done));

/** Ends the session and clears its cookie; returns it when someone was signed in, for what must follow (SessionEndedHook). */
export async function signOut(req: Request): Promise<EndedSession | null> {
  const { userId, oidcSid } = req.session;
  await settled((done) => req.session.destroy(done));
  const name = (req as WithPeople)[COOKIE_NAME];
  if (name) req.res?.clearCookie(name, { path: '/' });
  return userId && oidcSid ? { userId, sid: oidcSid } : null;
}

/**
 * A signed-in person or no further. Without one, a page sends the browser to sign in and come back
 * (302 to come back to this page; 303 after a form, to come back to `formPage`), and an API answers 401.
 */
export function requireSession(otherwise: 'sign-in' | 'unauthorized' = 'sign-in', formPage = '/home'): RequestHandler {
  return async (req, res, next) => {
    const person = await sessionPerson(req);
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
