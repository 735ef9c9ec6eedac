import type { Request, Response, NextFunction } from 'express';
import { matchedData } from 'express-validator';
import { ForbiddenError } from '../common/errors';
import { jwtClaims } from '../common/guards';
import * as usersService from './users.service';
import { toUserRead, type CreateUserDto, type PatchUserDto, type UserRecord } from './users.types';

interface UserLocals {
  user: UserRecord;
  /** The signed-in caller under USERS_API_AUTH=jwt; absent in the open mode. */
  caller?: UserRecord;
}

const caller = (res: Response) => (res.locals as UserLocals).caller;

/** USERS_API_AUTH=jwt: the access token's user as it is now (a deleted one is refused). */
export async function loadCaller(_req: Request, res: Response, next: NextFunction): Promise<void> {
  const found = await usersService.findById(jwtClaims(res).userId);
  if (!found) throw new ForbiddenError();
  (res.locals as UserLocals).caller = found;
  next();
}

export function requireMayList(_req: Request, res: Response, next: NextFunction): void {
  usersService.ensureMayList(caller(res)!);
  next();
}

export function requireMayManage(req: Request<{ userId: string }>, res: Response, next: NextFunction): void {
  usersService.ensureMayManage(caller(res)!, req.params.userId);
  next();
}

/** Seed 000 rule 1: every /users/:userId method answers 404 first, before the body is looked at. */
export async function loadUser(req: Request<{ userId: string }>, res: Response, next: NextFunction): Promise<void> {
  (res.locals as UserLocals).user = await usersService.getById(req.params.userId);
  next();
}

export async function list(req: Request, res: Response): Promise<void> {
  const { limit = usersService.MAX_PAGE_SIZE, page = 0 } = matchedData<{ limit?: number; page?: number }>(req, {
    locations: ['query'],
  });
  const users = await usersService.list(page, limit);
  res.json(users.map(toUserRead));
}

export async function create(req: Request, res: Response): Promise<void> {
  // matchedData holds only validated fields, so unknown ones (_id, uid, isAdmin, ...) never get stored.
  const id = await usersService.create(matchedData<CreateUserDto>(req, { locations: ['body'] }));
  res.status(201).json({ id });
}

export function get(_req: Request, res: Response): void {
  res.json(toUserRead((res.locals as UserLocals).user));
}

export function update(endAccess: usersService.AccessEndedHook) {
  return async (req: Request, res: Response): Promise<void> => {
    const changes = matchedData<PatchUserDto>(req, { locations: ['body'] });
    await usersService.update((res.locals as UserLocals).user, changes, caller(res) ?? null, endAccess);
    res.status(204).end();
  };
}

export function remove(endAccess: usersService.AccessEndedHook) {
  return async (_req: Request, res: Response): Promise<void> => {
    await usersService.remove((res.locals as UserLocals).user._id, endAccess);
    res.status(204).end();
  };
}
