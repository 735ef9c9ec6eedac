// A body the JSON or form parser refused, on an OAuth endpoint, answered as RFC 6749 invalid_request
// rather than in the users' format. Mounted right after the app's JSON parser, on these paths only.
import type { ErrorRequestHandler } from 'express';
import { bodyError } from '../common/error-handler';
import { OAuthErrorResponse } from './oauth.errors';

export const OAUTH_BODY_PATHS = ['/oauth/token', '/v1/oauth/token', '/oauth/revoke', '/oauth/introspect'];

export const oauthBodyErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  const known = bodyError(err);
  next(known ? new OAuthErrorResponse('invalid_request', known[1], known[0]) : err);
};
