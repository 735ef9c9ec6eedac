// Client registration: POST /oauth/clients, GET /oauth/clients, DELETE /oauth/clients/:clientId, for
// a user authenticated by a seed 000 access token (Authorization: Bearer) or a browser session.
import type { Request, RequestHandler, Response } from 'express';
import { matchedData } from 'express-validator';
import type { AccessTokens } from '../../common/access-tokens';
import { ForbiddenError } from '../../common/errors';
import { LIMITS } from '../protocol';
import { noStore } from '../../common/no-store';
import { jwtClaims, requireJwt } from '../../common/guards';
import { requireSession, signedInPerson } from '../../session/session.middleware';
import * as usersService from '../../users/users.service';
import * as clientsService from './clients.service';

const owner = (res: Response) => signedInPerson(res)._id;

/** The JWT's user when an Authorization header is sent, otherwise the session's; 401 without either. */
export function requireUser(accessTokens: AccessTokens): RequestHandler {
  const jwt = requireJwt(accessTokens);
  const session = requireSession('unauthorized');
  return async (req, res, next) => {
    if (!req.headers.authorization) {
      await session(req, res, next);
      return;
    }
    await jwt(req, res, () => undefined); // throws 401/403 for a missing or bad token
    const person = await usersService.findById(jwtClaims(res).userId);
    if (!person) throw new ForbiddenError();
    res.locals.person = person;
    next();
  };
}

export async function register(req: Request, res: Response): Promise<void> {
  const registration = matchedData<clientsService.ClientRegistration>(req, { locations: ['body'] });
  noStore(res)
    .status(201)
    .json(await clientsService.register(owner(res), registration));
}

export async function list(req: Request, res: Response): Promise<void> {
  const { page = 0, limit = LIMITS.pageSize } = matchedData<{ page?: number; limit?: number }>(req, { locations: ['query'] });
  res.json(await clientsService.listOwnedBy(owner(res), page, limit));
}

export function remove(ended: clientsService.ClientRemovedHook) {
  return async (req: Request<{ clientId: string }>, res: Response): Promise<void> => {
    await clientsService.remove(owner(res), req.params.clientId, ended);
    res.status(204).end();
  };
}
