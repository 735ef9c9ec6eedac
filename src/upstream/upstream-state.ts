// What a sign-in through an upstream provider must remember between leaving and coming back (its
// state, nonce, PKCE verifier, where to go after, and for a link the person asking), kept in a cookie
// signed with SESSION_SECRET rather than on the server: starting a sign-in (anyone may, any number of
// times) stores nothing, as for GitHub (social/provider-state.ts). The cookie is httpOnly, scoped to
// the provider's callback path, lives ten minutes and is cleared by the callback.
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

const cookieName = (providerId: string) => `upstream_${providerId}`;
export const callbackPath = (providerId: string) => `/auth/upstream/${providerId}/callback`;

export function createStateCookie(secret: string, secure: boolean) {
  const sign = (providerId: string, body: string) =>
    createHmac('sha256', secret).update(`upstream-state:${providerId}:${body}`).digest('base64url');

  return {
    set(res: Response, providerId: string, value: UpstreamState): void {
      const body = Buffer.from(JSON.stringify(value)).toString('base64url');
      res.cookie(cookieName(providerId), `${body}.${sign(providerId, body)}`, {
        httpOnly: true,
        sameSite: 'lax',
        secure,
        path: callbackPath(providerId),
        maxAge: STATE_LIFETIME_MS,
      });
    },

    /** The state this browser holds for the provider (cleared: it is read once), or null. */
    take(req: Request, res: Response, providerId: string, now: number): UpstreamState | null {
      const name = cookieName(providerId);
      const raw = cookieValue(req, name);
      res.clearCookie(name, { path: callbackPath(providerId) });
      const [body = '', signature = ''] = (raw ?? '').split('.');
      if (!body || !sameText(signature, sign(providerId, body))) return null;
      const value = JSON.parse(Buffer.from(body, 'base64url').toString()) as UpstreamState;
      return now - value.at < STATE_LIFETIME_MS && now >= value.at ? value : null;
    },
  };
}
