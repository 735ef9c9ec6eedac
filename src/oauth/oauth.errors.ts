// RFC 6749 §5.2 errors for the token, revocation, introspection and device endpoints: JSON
// `{ error, error_description }`, 401 for invalid_client, 400 for the rest, never cached.
import type { ErrorRequestHandler } from 'express';
import { bodyError } from '../common/error-handler';
import { AppError } from '../common/errors';
import { NO_STORE } from '../common/no-store';
import { tooManyRequestsAs, type TooManyRequestsError } from '../common/rate-limit';
import { presenter, TOO_MANY_REQUESTS, type RefusalKind } from '../common/refusals';
import { isDatabaseUnavailable } from '../db/mongoose';

export class OAuthErrorResponse extends AppError {
  constructor(
    readonly error: string,
    description: string,
    status = error === 'invalid_client' ? 401 : 400,
    headers: Record<string, string> = {},
  ) {
    super(
      status,
      { error, error_description: description },
      status === 401 ? { ...NO_STORE, 'WWW-Authenticate': 'Basic realm="oauth"', ...headers } : { ...NO_STORE, ...headers },
    );
  }
}

export const invalidRequest = (description: string) => new OAuthErrorResponse('invalid_request', description);
export const invalidGrant = (description: string) => new OAuthErrorResponse('invalid_grant', description);
export const invalidClient = (reason?: string) =>
  new OAuthErrorResponse('invalid_client', reason ? `Client authentication failed: ${reason}` : 'Client authentication failed');

/** 429 in the OAuth format, for the token endpoints' limits and the sign-in budget. */
export const tooManyTokenRequests = (refused: TooManyRequestsError): AppError =>
  tooManyRequestsAs({ error: 'too_many_requests', error_description: TOO_MANY_REQUESTS }, NO_STORE, refused);

/** A refusal's status and error code in the OAuth body: a cap reached is RFC 7591's `access_denied`. */
const OAUTH_REFUSALS: Readonly<Record<RefusalKind, [number, string]>> = {
  invalid: [400, 'invalid_request'],
  conflict: [409, 'invalid_request'],
  cap: [403, 'access_denied'],
};

/** The presenter of the OAuth endpoints and the admin API (common/refusals.ts). */
export const oauthRefusals = presenter({
  tooMany: tooManyTokenRequests,
  refusal: (refused) => {
    const [status, error] = OAUTH_REFUSALS[refused.kind];
    return new OAuthErrorResponse(refused.protocolError ?? error, refused.message, status);
  },
});

/** 503 with Retry-After while the database cannot be reached. */
export const temporarilyUnavailable = (): AppError =>
  new OAuthErrorResponse('temporarily_unavailable', 'The service is temporarily unavailable, try again shortly', 503, {
    'Retry-After': '1',
  });

/** A body the JSON or form parser refused is invalid_request, not the users' error format. */
export const oauthBodyErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  const known = bodyError(err);
  next(known ? new OAuthErrorResponse('invalid_request', known[1], known[0]) : err);
};

/** The token endpoints answer an outage in their own format: temporarily_unavailable with Retry-After. */
export const oauthOutage: ErrorRequestHandler = (err, _req, _res, next) => {
  next(isDatabaseUnavailable(err) ? temporarilyUnavailable() : err);
};
