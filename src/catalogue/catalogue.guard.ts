// HTTP Basic authentication for the catalogue (seed 001 part B): the email and password of a user.
import type { RequestHandler } from 'express';
import * as authService from '../auth/auth.service';
import type { VerifiedCredentialsCache } from '../auth/verified-credentials.cache';
import { parseBasicAuthorization } from '../common/basic-auth';
import { AppError } from '../common/errors';

/** 401 in the catalogue's envelope, with the Basic challenge. */
export class CatalogueUnauthorizedError extends AppError {
  constructor(message: string) {
    super(401, { error: true, message, status_code: 401 }, { 'WWW-Authenticate': 'Basic realm="catalogue"' });
  }
}

export function requireBasicAuth(cache: VerifiedCredentialsCache | undefined): RequestHandler {
  return async (req, _res, next) => {
    const credentials = parseBasicAuthorization(req.headers.authorization);
    if (!credentials) throw new CatalogueUnauthorizedError('Authentication required');
    const email = credentials.name.trim().toLowerCase();
    const userId = await authService.verifyCredentials(email, credentials.password, cache);
    if (!userId) throw new CatalogueUnauthorizedError('Invalid email or password');
    next();
  };
}
