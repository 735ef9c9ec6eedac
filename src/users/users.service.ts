// Seed 000's rules for user records: unique email, an email that belongs to the addressed user,
// permissionFlags fixed at 1 on creation, and passwords stored only as argon2id hashes.
import { BadRequestError, NotFoundError } from '../common/errors';
import { hashPassword } from '../common/passwords';
import { nextSequenceValue } from '../db/counters';
import { isDuplicateKeyError } from '../db/duplicate-key';
import * as usersDao from './users.dao';
import type { CreateUserDto, PatchUserDto, UserChanges, UserRecord } from './users.types';

const DEFAULT_PERMISSION_FLAGS = 1;
export const MAX_PAGE_SIZE = 100;

const emailTaken = () => new BadRequestError('User email already exists');

export async function create(dto: CreateUserDto): Promise<string> {
  // Checked first so a duplicate costs no hashing; the unique index settles races.
  if (await usersDao.existsWithEmail(dto.email)) throw emailTaken();
  const password = await hashPassword(dto.password);
  const uid = await nextSequenceValue('users.uid');
  try {
    return await usersDao.insert({
      uid,
      email: dto.email,
      password,
      firstName: dto.firstName,
      lastName: dto.lastName,
      permissionFlags: DEFAULT_PERMISSION_FLAGS,
    });
  } catch (err) {
    if (isDuplicateKeyError(err)) throw emailTaken();
    throw err;
  }
}

export async function getById(id: string): Promise<UserRecord> {
  const user = await usersDao.findById(id);
  if (!user) throw new NotFoundError(`User ${id} not found`);
  return user;
}

export function list(page: number, limit: number): Promise<UserRecord[]> {
  return usersDao.list(page * limit, limit);
}

/** PUT and PATCH alike: validation has already made PUT's fields all present. */
export async function update(user: UserRecord, dto: PatchUserDto): Promise<void> {
  // The email identifies the account and cannot change: it may only repeat the stored one.
  if (dto.email !== undefined && dto.email !== user.email) throw new BadRequestError('Invalid email');
  const { password, ...fields } = dto;
  const changes: UserChanges = { ...fields };
  if (password !== undefined) changes.password = await hashPassword(password);
  if (!(await usersDao.update(user._id, changes))) throw new NotFoundError(`User ${user._id} not found`);
}

export async function remove(id: string): Promise<void> {
  if (!(await usersDao.remove(id))) throw new NotFoundError(`User ${id} not found`);
}

/** For sign-in: the account id and stored hash for an email, or null. */
export function findCredentials(email: string): Promise<{ _id: string; password?: string } | null> {
  return usersDao.findPasswordHashByEmail(email);
}

export function upgradePasswordHash(id: string, passwordHash: string): Promise<void> {
  return usersDao.setPasswordHash(id, passwordHash);
}
