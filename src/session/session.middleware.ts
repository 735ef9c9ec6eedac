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
    /** How the person signed in (RFC 8176): `pwd`, `otp`, `hwk`/`swk`, `mfa`, `fed`. */
    amr?: string[];
    /** OpenID Connect's `sid`: names this session to applications (never the cookie's own id). */
    oidcSid?: string;
    csrfToken?: string;
    /** The browser that signed in (its User-Agent, shortened) and its address: the account page's list. */
    device?: string;
    address?: string;
    /** A password was right and a second factor is owed: nobody is signed in yet (docs/security.md, Second factors). */
    pending?: PendingSignIn;
  }
}

/** What a right password (or a step-up) leaves while the second factor is asked for. */
export interface PendingSignIn {
  userId: string;
  remember: boolean;
  /** Where to go once the second factor is given (a local path). */
  returnTo: string;
  /** The methods already proven (`pwd`, or `fed`, or those of the session being stepped up). */
  amr: string[];
  /** When the password was given (ms): the second step must follow within a few minutes. */
  at: number;
}

/**
 * Sign-in that owes a second factor, wired in createApp from the factors feature: whether the person
 * has one, and the step that asks for it (the browser goes to /login/verify).
 */
export interface SecondStep {
  required(userId: string): Promise<boolean>;
  start(req: Request, res: Response, pending: Omit<PendingSignIn, 'at'>): Promise<void>;
}

/** Keeps the pending sign-in in a new session (nobody signed in), stored before the redirect goes out. */
export async function holdSignIn(req: Request, pending: Omit<PendingSignIn, 'at'>): Promise<void> {
  const stepUp = req.session.userId === pending.userId;
  if (!stepUp) await settled((done) => req.session.regenerate(done));
  req.session.pending = { ...pending, at: Date.now() };
  await settled((done) => req.session.save(done));
}

/**
 * The second factor was given: a new signed-in session, or, for a person already signed in to this
 * browser (a step-up), the same session with the stronger methods and a new auth_time.
 */
export async function completeSignIn(req: Request, pending: PendingSignIn, amr: string[]): Promise<void> {
  if (req.session.userId === pending.userId) {
    delete req.session.pending;
    req.session.amr = amr;
    req.session.authTime = Date.now();
    await settled((done) => req.session.save(done));
    return;
  }
  await signIn(req, pending.userId, pending.remember, amr);
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

/**
 * Starts a signed-in session under a new id (no session fixation); remember-me makes the cookie last
 * 30 days. `amr`: how the person proved who they are (RFC 8176).
 */
export async function signIn(req: Request, userId: string, remember: boolean, amr: string[]): Promise<void> {
  await settled((done) => req.session.regenerate(done));
  req.session.userId = userId;
  req.session.authTime = Date.now();
  req.session.amr = amr;
  req.session.oidcSid = randomToken(16);
  // The forms' token is made now and stored with the session: made later, while a page renders,
  // express-session would save it only as that page's last byte goes out, and a quick click on the
  // page (consent's Approve) could reach the server before it is stored.
  req.session.csrfToken = randomToken();
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
