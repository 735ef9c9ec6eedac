// Who may read the catalogue: HTTP Basic (seed 001 part B), the email and password of a user raw as
// RFC 7617 sends them, failures counting against the server's one sign-in budget; or an OAuth access
// token of this server with the `read` scope (Bearer or DPoP, opaque or an RFC 9068 JWT), a person's
// or a client's own. A refusal comes in the catalogue's envelope, with the scheme's own challenge.
import type { RequestHandler, Response } from 'express';
import type { PasswordVerifier } from '../sign-in/sign-in.service';
import { basicCredentials, bearerToken, dpopToken } from '../common/authorization';
import { AppError } from '../common/errors';
import { principal } from '../common/guards';
import { clientAddress, tooManyRequestsAs } from '../common/rate-limit';
import { presenter, STATUS_OF, TOO_MANY_REQUESTS } from '../common/refusals';

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="catalogue"' };

/** The presenter of the catalogue's routes (common/refusals.ts): its envelope. */
export const catalogueRefusals = presenter({
  tooMany: (refused) => tooManyRequestsAs({ error: true, message: TOO_MANY_REQUESTS, status_code: 429 }, {}, refused),
  refusal: (refused) => {
    const status = STATUS_OF[refused.kind];
    return new AppError(status, { error: true, message: refused.message, status_code: status });
  },
});

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
    const userId = await verifyPassword({ email: credentials.name, password: credentials.password, address: clientAddress(req) });
    if (!userId) throw new CatalogueUnauthorizedError('Invalid email or password');
    res.locals.basicUserId = userId;
    next();
  };
}

/** Basic credentials, or an OAuth access token checked by `tokenGuard` (its refusals put in the catalogue's envelope). */
export function requireCatalogueCaller(verifyPassword: PasswordVerifier, tokenGuard: RequestHandler): RequestHandler {
  const basic = requireBasicAuth(verifyPassword);
  return async (req, res, next): Promise<void> => {
    const header = req.headers.authorization;
    if (bearerToken(header) === null && dpopToken(header) === null) return void (await basic(req, res, next));
    try {
      await tokenGuard(req, res, next);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const body = err.body as { error?: string; error_description?: string } | undefined;
      const message = body?.error_description ?? body?.error ?? 'Authentication required';
      throw new AppError(err.status, { error: true, message, status_code: err.status }, err.headers);
    }
  };
}

/** The id of the user whose email and password requireBasicAuth accepted. */
export const basicUserId = (res: Response): string => principal(res, 'basicUserId');
