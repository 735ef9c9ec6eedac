// CSRF protection for the HTML forms: a random token repeated in a hidden field, and a POST without
// the matching token is refused. Signed-in pages keep the token in the session. Anonymous pages (the
// login form) keep it in a cookie signed with SESSION_SECRET, so showing a form stores nothing: a
// session is only written once there is something to keep.
import { createHmac } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { randomToken } from '../common/crypto';
import { bodyField } from '../common/request-body';
import { tokenField } from '../common/request-fields';
import type { Config } from '../config';
import { pageError } from './layout';
import { cookieValue, sameText } from '../common/cookies';
import { browserCookies } from './cookies';

/** The hidden field of every page form: a value of another shape is no token (403, as a wrong one). */
export const CSRF_FIELDS = {
  _csrf: tokenField('The CSRF token from the page that holds the form; a missing or wrong one is answered 403'),
};

export interface Csrf {
  /** The token for a form on this response, created (and stored) when there is none yet. */
  token(req: Request, res: Response): string;
  /** Refuses a form POST whose _csrf field does not match. */
  require: RequestHandler;
  /** The same, but only for a signed-in session (signing out one that is not changes nothing). */
  requireWhenSignedIn: RequestHandler;
}

/** What a signed-in session keeps of the token (session/session.middleware.ts; wired in app.ts). */
export interface SessionTokens {
  signedIn(req: Request): boolean;
  /** The token the session holds, if any. */
  held(req: Request): string | undefined;
  /** The session's token, made on first use. */
  ensure(req: Request): string;
}

export function createCsrf(config: Config, session: SessionTokens): Csrf {
  const cookies = browserCookies(config);
  const COOKIE = cookies.name('csrf');
  const sign = (token: string) => createHmac('sha256', config.sessionSecret).update(`csrf:${token}`).digest('base64url');

  function cookieToken(req: Request): string | undefined {
    const [token, signature] = (cookieValue(req, COOKIE) ?? '').split('.');
    return token && signature && sameText(signature, sign(token)) ? token : undefined;
  }

  const { signedIn } = session;

  function require(req: Request, _res: Response, next: () => void): void {
    const expected = signedIn(req) ? session.held(req) : cookieToken(req);
    const presented = CSRF_FIELDS._csrf.read(bodyField(req, '_csrf'), '_csrf');
    if (typeof expected !== 'string' || presented === undefined || !sameText(presented, expected)) {
      throw pageError(403, 'Form expired', 'This form has expired or did not come from this site. Go back, reload the page and try again.');
    }
    next();
  }

  return {
    require,
    requireWhenSignedIn(req, res, next) {
      if (signedIn(req)) require(req, res, next);
      else next();
    },

    token(req, res) {
      if (signedIn(req)) return session.ensure(req);
      const existing = cookieToken(req);
      if (existing) return existing;
      const token = randomToken();
      // Like the session cookie: a Secure one only over https (TRUST_PROXY tells when a proxy terminated it).
      if (!cookies.secure || req.secure) res.cookie(COOKIE, `${token}.${sign(token)}`, cookies.options);
      return token;
    },
  };
}
