// Connected applications: revoked from /home (a form with the CSRF token) or, with a seed 000 access
// token, listed and revoked as JSON. A person only ever sees and revokes their own.
import type { Request, Response } from 'express';
import { NotFoundError } from '../../common/errors';
import type { JwtLocals } from '../../common/guards';
import { noStore } from '../../common/no-store';
import * as sessionService from '../../session/session.service';
import * as grantsService from './grants.service';

const jwtUser = (res: Response) => (res.locals as JwtLocals).jwt.userId;

export async function revokeFromHome(req: Request<{ clientId: string }>, res: Response): Promise<void> {
  const user = await sessionService.currentUser(req.session);
  if (!user) return res.redirect(303, '/login');
  try {
    await grantsService.revoke(user._id, req.params.clientId);
  } catch (err) {
    // Already revoked (another tab, another instance): the page shows what is left either way.
    if (!(err instanceof NotFoundError)) throw err;
  }
  res.redirect(303, '/home');
}

export async function list(_req: Request, res: Response): Promise<void> {
  noStore(res).json(await grantsService.listConnected(jwtUser(res)));
}

export async function revoke(req: Request<{ clientId: string }>, res: Response): Promise<void> {
  await grantsService.revoke(jwtUser(res), req.params.clientId);
  res.status(204).end();
}
