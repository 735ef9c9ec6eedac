// HTTP Basic authentication for the catalogue (seed 001 part B): the email and password of a user,
// raw as RFC 7617 sends them. Failures count against the server's one sign-in budget.
import type { RequestHandler, Response } from 'express';
import type { PasswordVerifier } from '../sign-in/sign-in.service';
import { basicCredentials } from '../common/authorization';
import { AppError } from '../common/errors';
import { principal } from '../common/guards';
import { clientAddress, TooManyRequestsError, tooManyRequestsAs } from '../common/rate-limit';

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="catalogue"' };

/** 401 in the catalogue's envelope, with the Basic challenge. */
export class CatalogueUnauthorizedError extends AppError {
  constructor(message: string) {
    super(401, { error: true, message, status_code: 401 }, CHALLENGE);
  }
}

export function requireBasicAuth(verifyPassword: PasswordVerifier): RequestHandler {
  return async (req, res, next) => {
    const credentials = basicCredentials(req.headers.authorization);
    if (!credentials) throw new CatalogueUnauthorizedError('Authentication required');
    let userId: string | null;
    try {
      userId = await verifyPassword({ email: credentials.name, password: credentials.password, address: clientAddress(req) });
    } catch (err) {
      if (!(err instanceof TooManyRequestsError)) throw err;
      throw tooManyRequestsAs({ error: true, message: 'Too many failed sign-ins, try again later', status_code: 429 }, {}, err);
    }
    if (!userId) throw new CatalogueUnauthorizedError('Invalid email or password');
    res.locals.basicUserId = userId;
    next();
  };
}

/** The id of the user whose email and password requireBasicAuth accepted. */
export const basicUserId = (res: Response): string => principal(res, 'basicUserId');
