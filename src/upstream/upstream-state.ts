// What a sign-in through a provider (GitHub or an OpenID provider, federation.ts) must remember
// between leaving and coming back (its state, nonce, PKCE verifier, where to go after, and for a link
// the person asking), kept in a cookie signed with SESSION_SECRET rather than on the server: starting
// a sign-in (anyone may, any number of times) stores nothing. The cookie is httpOnly, scoped to the
// provider's callback path, lives ten minutes and is cleared by the callback.
import { createHmac } from 'node:crypto';
import type { Request, Response } from 'express';
import { cookieValue, sameText } from '../common/cookies';

export const STATE_LIFETIME_MS = 10 * 60_000;

export interface UpstreamState {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  /** Set when a signed-in person asked to link this provider (from /account): their id. */
  linkFor?: string;
  /** When it was made (ms): the cookie's own expiry is the browser's word only. */
  at: number;
}

/** Where a provider's state cookie lives: its name and its callback's path (federation.ts). */
export interface StateCookieOf {
  stateCookie: string;
  callbackPath: string;
}

export function createStateCookie(secret: string, secure: boolean) {
  const sign = (cookie: string, body: string) =>
    createHmac('sha256', secret).update(`upstream-state:${cookie}:${body}`).digest('base64url');

  return {
    set(res: Response, provider: StateCookieOf, value: UpstreamState): void {
      const body = Buffer.from(JSON.stringify(value)).toString('base64url');
      res.cookie(provider.stateCookie, `${body}.${sign(provider.stateCookie, body)}`, {
        httpOnly: true,
        sameSite: 'lax',
        secure,
        path: provider.callbackPath,
        maxAge: STATE_LIFETIME_MS,
      });
    },

    /** The state this browser holds for the provider (cleared: it is read once), or null. */
    take(req: Request, res: Response, provider: StateCookieOf, now: number): UpstreamState | null {
      const raw = cookieValue(req, provider.stateCookie);
      res.clearCookie(provider.stateCookie, { path: provider.callbackPath });
      const [body = '', signature = ''] = (raw ?? '').split('.');
      if (!body || !sameText(signature, sign(provider.stateCookie, body))) return null;
      const value = JSON.parse(Buffer.from(body, 'base64url').toString()) as UpstreamState;
      return now - value.at < STATE_LIFETIME_MS && now >= value.at ? value : null;
    },
  };
}
