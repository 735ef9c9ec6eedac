// Sessions for the browser routes only (login, logout, home, sign-in providers, authorize and consent,
// client registration by session). Cookie `sid`: httpOnly, SameSite=Lax, Secure in production.
import type { RequestHandler } from 'express';
import session from 'express-session';
import type { Config } from '../config';
import { MongoSessionStore } from './session.store';

declare module 'express-session' {
  interface SessionData {
    userId?: string;
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
