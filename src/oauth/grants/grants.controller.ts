// Connected applications: revoked from /home (a form with the CSRF token) or, with a seed 000 access
// token, listed and revoked as JSON. A person only ever sees and revokes their own.
import type { Request, Response } from 'express';
import { NotFoundError } from '../../common/errors';
import { jwtClaims } from '../../common/guards';
import { matchedData } from 'express-validator';
import { noStore } from '../../common/no-store';
import { readForm } from '../../common/request-fields';
import { REVOKE_FORM } from '../../web/applications';
import { LIMITS } from '../protocol';
import { signedInPerson } from '../../session/session.middleware';
import * as grantsService from './grants.service';

const jwtUser = (res: Response) => jwtClaims(res).userId;

export function revokeFromHome(lifetimes: grantsService.TokenLifetimes) {
  return async (req: Request<{ clientId: string }>, res: Response): Promise<void> => {
    const { back = '/home' } = readForm(REVOKE_FORM, req);
    // Already revoked (another tab, another instance): the page shows what is left either way.
    await grantsService.revoke(signedInPerson(res)._id, req.params.clientId, lifetimes);
    res.redirect(303, back);
  };
}

/** GET /oauth/grants: a page of the caller's connected applications. */
export function listFor(clients: grantsService.ClientRegistry) {
  return async (req: Request, res: Response): Promise<void> => {
    const { page = 0, limit = LIMITS.pageSize } = matchedData<{ page?: number; limit?: number }>(req, { locations: ['query'] });
    noStore(res).json(await grantsService.listConnected(clients, jwtUser(res), page, limit));
  };
}

export function revoke(lifetimes: grantsService.TokenLifetimes) {
  return async (req: Request<{ clientId: string }>, res: Response): Promise<void> => {
    if (!(await grantsService.revoke(jwtUser(res), req.params.clientId, lifetimes)))
      throw new NotFoundError(`No connected application ${req.params.clientId}`);
    res.status(204).end();
  };
}

/** GET /home/applications/:clientId/open: off to the application's initiate_login_uri, with `iss`. */
export function openFrom(issuer: string, clients: grantsService.ClientRegistry) {
  return async (req: Request<{ clientId: string }>, res: Response): Promise<void> => {
    const location = await grantsService.loginInitiation(clients, signedInPerson(res)._id, req.params.clientId, issuer);
    if (!location) throw new NotFoundError('That application takes no sign-in started here');
    res.redirect(303, location);
  };
}
