// RFC 6749 §5.2 errors for the token, revocation and introspection endpoints: JSON
// `{ error, error_description }`, 401 for invalid_client, 400 for the rest, never cached.
import { OAuthError } from '@node-oauth/oauth2-server';
import { AppError } from '../common/errors';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export class OAuthErrorResponse extends AppError {
  constructor(error: string, description: string, status = error === 'invalid_client' ? 401 : 400) {
    super(
      status,
      { error, error_description: description },
      status === 401 ? { ...NO_STORE, 'WWW-Authenticate': 'Basic realm="oauth"' } : NO_STORE,
    );
  }
}

/** Turns whatever the library threw into our response; unexpected errors stay 500 server_error. */
export function fromLibraryError(err: unknown): AppError {
  if (err instanceof OAuthError && err.name !== 'server_error') return new OAuthErrorResponse(err.name, err.message);
  return new AppError(500, { error: 'server_error', error_description: 'The server could not complete the request' }, NO_STORE, {
    cause: err,
  });
}

export { NO_STORE };
