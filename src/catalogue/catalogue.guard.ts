// HTTP Basic authentication for the catalogue (seed 001 part B): the email and password of a user.
import type { RequestHandler } from 'express';
import * as authService from '../auth/auth.service';
import type { VerifiedCredentialsCache } from '../auth/verified-credentials.cache';
import { AppError } from '../common/errors';

const MAX_HEADER_LENGTH = 2048;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** 401 in the catalogue's envelope, with the Basic challenge. */
export class CatalogueUnauthorizedError extends AppError {
  constructor(message: string) {
    super(401, { error: true, message, status_code: 401 }, { 'WWW-Authenticate': 'Basic realm="catalogue"' });
  }
}

/** Email and password from a Basic header, or null when the header is absent or malformed. */
export function parseBasicCredentials(header: string | undefined): { email: string; password: string } | null {
  if (!header || header.length > MAX_HEADER_LENGTH) return null;
  const [scheme, encoded, ...rest] = header.trim().split(/ +/);
  if (scheme.toLowerCase() !== 'basic' || !encoded || rest.length > 0 || !BASE64.test(encoded)) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return null;
  return { email: decoded.slice(0, colon).trim().toLowerCase(), password: decoded.slice(colon + 1) };
}

export function requireBasicAuth(cache: VerifiedCredentialsCache | undefined): RequestHandler {
  return async (req, _res, next) => {
    const credentials = parseBasicCredentials(req.headers.authorization);
    if (!credentials) throw new CatalogueUnauthorizedError('Authentication required');
    const userId = await authService.verifyCredentials(credentials.email, credentials.password, cache);
    if (!userId) throw new CatalogueUnauthorizedError('Invalid email or password');
    next();
  };
}
