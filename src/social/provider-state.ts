// The `state` of a sign-in through an identity provider, kept in a cookie signed with SESSION_SECRET
// rather than in a session: starting a sign-in (anyone may, any number of times) stores nothing on
// the server, as the sign-in form's CSRF token does not (web/csrf.ts). The cookie is scoped to
// /auth/, lives ten minutes and is cleared by the callback, so a state is accepted once per browser.
// It also carries where the person goes after signing in (`return_to` on the start link: a local path),
// signed with the state, and left for the callback in `res.locals.providerReturnTo`.
import { createHmac } from 'node:crypto';
import type { Request } from 'express';
import { randomToken } from '../common/crypto';
import { safeReturnTo } from '../session/session.service';
import { cookieValue, sameText } from '../common/cookies';
import { readQuery } from '../common/request-fields';
import { PROVIDER_QUERY } from './social.fields';

const LIFETIME_MS = 10 * 60_000;
const PATH = '/auth/';

type Stored = (err: Error | null, state?: string) => void;
type Verified = (err: Error | null, ok: boolean, info?: { message: string }) => void;

/** A passport-oauth2 state store (its `store` option) for one provider. */
export function signedCookieStateStore(options: { provider: string; secret: string; secure: boolean }) {
  const cookie = `${options.provider}_state`;
  const sign = (state: string, back: string) =>
    createHmac('sha256', options.secret).update(`provider-state:${options.provider}:${state}:${back}`).digest('base64url');
  return {
    // passport-oauth2 picks the call by arity: (req, meta, callback).
    store(req: Request, _meta: unknown, done: Stored): void {
      const state = randomToken();
      const back = safeReturnTo(readQuery(PROVIDER_QUERY, req).return_to);
      req.res!.cookie(cookie, `${state}.${Buffer.from(back).toString('base64url')}.${sign(state, back)}`, {
        httpOnly: true,
        sameSite: 'lax',
        secure: options.secure,
        path: PATH,
        maxAge: LIFETIME_MS,
      });
      done(null, state);
    },
    // (req, state, callback)
    verify(req: Request, presented: unknown, done: Verified): void {
      const [state = '', encodedBack = '', signature = ''] = (cookieValue(req, cookie) ?? '').split('.');
      const back = Buffer.from(encodedBack, 'base64url').toString();
      req.res!.clearCookie(cookie, { path: PATH });
      const ok = state !== '' && typeof presented === 'string' && sameText(presented, state) && sameText(signature, sign(state, back));
      if (ok) req.res!.locals.providerReturnTo = safeReturnTo(back);
      done(null, ok, ok ? undefined : { message: 'Invalid authorization request state.' });
    },
  };
}
