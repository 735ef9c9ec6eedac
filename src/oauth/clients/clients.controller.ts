// Client registration: POST /oauth/clients, GET /oauth/clients, DELETE /oauth/clients/:clientId, for
// a user authenticated by a seed 000 access token (Authorization: Bearer) or a browser session.
import type { NextFunction, Request, Response } from 'express';
import { matchedData } from 'express-validator';
import type { AccessTokens } from '../../common/access-tokens';
import { ForbiddenError, UnauthorizedError } from '../../common/errors';
import { noStore } from '../../common/no-store';
import { requireAccessToken, type JwtLocals } from '../../common/guards';
import * as sessionService from '../../session/session.service';
import * as usersService from '../../users/users.service';
import * as clientsService from './clients.service';

interface OwnerLocals {
  ownerId: string;
}

const owner = (res: Response) => (res.locals as OwnerLocals).ownerId;

/** The JWT's user when an Authorization header is sent, otherwise the session's; 401 without either. */
export function requireUser(accessTokens: AccessTokens) {
  const jwtGuard = requireAccessToken(accessTokens);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.headers.authorization) {
      await new Promise<void>((resolve) => jwtGuard(req, res, () => resolve()));
      const { userId } = (res.locals as JwtLocals).jwt;
      if (!(await usersService.findById(userId))) throw new ForbiddenError();
      (res.locals as OwnerLocals).ownerId = userId;
      return next();
    }
    const user = await sessionService.currentUser(req.session);
    if (!user) throw new UnauthorizedError();
    (res.locals as OwnerLocals).ownerId = user._id;
    next();
  };
}

export async function register(req: Request, res: Response): Promise<void> {
  const registration = matchedData<clientsService.ClientRegistration>(req, { locations: ['body'] });
  noStore(res)
    .status(201)
    .json(await clientsService.register(owner(res), registration));
}

export async function list(_req: Request, res: Response): Promise<void> {
  res.json(await clientsService.listOwnedBy(owner(res)));
}

export function remove(ended: clientsService.ClientRemovedHook) {
  return async (req: Request<{ clientId: string }>, res: Response): Promise<void> => {
    await clientsService.remove(owner(res), req.params.clientId, ended);
    res.status(204).end();
  };
}
