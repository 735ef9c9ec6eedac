// The protected resource of seed 001 (GET /api/user): the token's person, shaped like GET /users/:id.
import type { Request, Response } from 'express';
import { noStore } from '../common/no-store';
import { toUserRead } from '../users/users.types';
import { oauthPrincipal } from './tokens/bearer.middleware';

/** Personal data: never stored by a cache on the way (no-store). */
export function currentUser(_req: Request, res: Response): void {
  noStore(res).json(toUserRead(oauthPrincipal(res).person));
}
