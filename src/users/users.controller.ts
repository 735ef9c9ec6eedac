import type { Request, Response, NextFunction } from 'express';
import { matchedData } from 'express-validator';
import { BadRequestError, ForbiddenError } from '../common/errors';
import type { PasswordVerifier } from '../sign-in/sign-in.service';
import { jwtClaims } from '../common/guards';
import { clientAddress } from '../common/rate-limit';
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
  const id = await usersService.create(matchedData<CreateUserDto>(req, { locations: ['body'] }), clientAddress(req));
  res.status(201).json({ id });
}

export function get(_req: Request, res: Response): void {
  res.json(toUserRead((res.locals as UserLocals).user));
}

/**
 * USERS_API_AUTH=jwt: someone changing their own password proves the current one (a stolen access
 * token alone cannot take the account); an admin resetting another person's does not. The check is
 * a password check like any other, in the one sign-in budget.
 */
async function proveCurrentPassword(req: Request, res: Response, verifyPassword: PasswordVerifier, currentPassword: string | undefined) {
  const user = (res.locals as UserLocals).user;
  const proven =
    currentPassword !== undefined &&
    user.email !== undefined &&
    (await verifyPassword({ email: user.email, password: currentPassword, address: clientAddress(req) })) === user._id;
  if (!proven) throw new BadRequestError(usersService.INVALID_CURRENT_PASSWORD);
}

export function update(endAccess: usersService.AccessEndedHook, verifyPassword: PasswordVerifier) {
  return async (req: Request, res: Response): Promise<void> => {
    const { currentPassword, ...changes } = matchedData<PatchUserDto & { currentPassword?: string }>(req, { locations: ['body'] });
    const signedIn = caller(res);
    if (signedIn && signedIn._id === (res.locals as UserLocals).user._id && changes.password !== undefined) {
      await proveCurrentPassword(req, res, verifyPassword, currentPassword);
    }
    await usersService.update((res.locals as UserLocals).user, changes, signedIn ?? null, endAccess, clientAddress(req));
    res.status(204).end();
  };
}

export function remove(endAccess: usersService.AccessEndedHook) {
  return async (_req: Request, res: Response): Promise<void> => {
    await usersService.remove((res.locals as UserLocals).user._id, endAccess);
    res.status(204).end();
  };
}
