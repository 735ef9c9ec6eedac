// The protected resource of seed 001 (GET /api/user): the token's person, shaped like GET /users/:id.
import type { Request, Response } from 'express';
import { toUserRead } from '../users/users.types';
import { oauthPrincipal } from './tokens/bearer.middleware';

export function currentUser(_req: Request, res: Response): void {
  res.json(toUserRead(oauthPrincipal(res).person));
}
