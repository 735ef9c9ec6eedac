// Synchronizer-token CSRF protection for the HTML forms: a random token kept in the session and
// repeated in a hidden field; a POST without the matching token is refused.
import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { randomToken } from '../common/crypto';
import { pageError } from './pages';

export function csrfToken(req: Request): string {
  req.session.csrfToken ??= randomToken();
  return req.session.csrfToken;
}

export const requireCsrf: RequestHandler = (req, _res, next) => {
  const expected = req.session.csrfToken;
  const presented: unknown = req.body?._csrf;
  const valid =
    typeof expected === 'string' &&
    typeof presented === 'string' &&
    presented.length === expected.length &&
    timingSafeEqual(Buffer.from(presented), Buffer.from(expected));
  if (!valid) {
    throw pageError(403, 'Form expired', 'This form has expired or did not come from this site. Go back, reload the page and try again.');
  }
  next();
};
