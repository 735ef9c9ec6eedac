// RFC 6749 §5.2 errors for the token, revocation and introspection endpoints: JSON
// `{ error, error_description }`, 401 for invalid_client, 400 for the rest, never cached.
import { OAuthError } from '@node-oauth/oauth2-server';
import type { ErrorRequestHandler } from 'express';
import { bodyError } from '../common/error-handler';
import { AppError } from '../common/errors';
import { NO_STORE } from '../common/no-store';
import { TooManyRequestsError, tooManyRequestsAs } from '../common/rate-limit';
import { isDatabaseUnavailable } from '../db/mongoose';

export class OAuthErrorResponse extends AppError {
  constructor(error: string, description: string, status = error === 'invalid_client' ? 401 : 400, headers: Record<string, string> = {}) {
    super(
      status,
      { error, error_description: description },
      status === 401 ? { ...NO_STORE, 'WWW-Authenticate': 'Basic realm="oauth"', ...headers } : { ...NO_STORE, ...headers },
    );
  }
}

/** 429 in the OAuth format, for the token endpoints' limits and the sign-in budget. */
export const tooManyTokenRequests = (refused: TooManyRequestsError): AppError =>
  tooManyRequestsAs({ error: 'too_many_requests', error_description: 'Too many requests, try again later' }, NO_STORE, refused);

/** 503 with Retry-After while the database cannot be reached. */
export const temporarilyUnavailable = (): AppError =>
  new OAuthErrorResponse('temporarily_unavailable', 'The service is temporarily unavailable, try again shortly', 503, {
    'Retry-After': '1',
  });

/**
 * Turns whatever the library threw into our response. The library wraps our own errors (a sign-in
 * budget refusal, an unreachable database) in a server_error; those keep their meaning. Anything else
 * unexpected stays 500 server_error.
 */
export function fromLibraryError(err: unknown): AppError {
  if (err instanceof OAuthError && err.name !== 'server_error') return new OAuthErrorResponse(err.name, err.message);
  const inner: unknown = err instanceof OAuthError ? (err as OAuthError & { inner?: unknown }).inner : err;
  if (inner instanceof TooManyRequestsError) return tooManyTokenRequests(inner);
  if (isDatabaseUnavailable(inner)) return temporarilyUnavailable();
  return new AppError(500, { error: 'server_error', error_description: 'The server could not complete the request' }, NO_STORE, {
    cause: err,
  });
}

/** A body the JSON or form parser refused is invalid_request, not the users' error format. */
export const oauthBodyErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  const known = bodyError(err);
  next(known ? new OAuthErrorResponse('invalid_request', known[1], known[0]) : err);
};
