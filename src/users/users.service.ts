// Seed 000's rules for user records: unique email, an email that belongs to the addressed user,
// permissionFlags fixed at 1 on creation, and passwords stored only as argon2id hashes.
import { normalizeEmail } from '../common/email';
import { BadRequestError, ForbiddenError, NotFoundError } from '../common/errors';
import { hashPassword, type Requester } from '../common/passwords';
import { nextSequenceValue } from '../db/counters';
import { isDuplicateKeyError } from '../db/duplicate-key';
import * as usersDao from './users.dao';
import shortid from 'shortid';
import { providerIdField, type ProviderName } from './users.providers';
import type { CreateUserDto, PatchUserDto, ProviderAccount, UserChanges, UserRecord } from './users.types';

const DEFAULT_PERMISSION_FLAGS = 1;
export const MAX_PAGE_SIZE = 100;

/**
 * What must end when a user is deleted or their password changes: every token, grant, session and
 * remembered verification issued to them. The features that issue those import users/, so users/
 * cannot call them; src/wiring.ts builds this once and every entry point passes it in.
 */
export type AccessEndedHook = (userId: string) => Promise<void>;

/**
 * The built-in role of operators (docs/oauth.md, Roles): given only by an operator (npm run make-admin,
 * the admin API, the console), never read from seed 000's permissionFlags, which anyone may write
 * while the users API is open (docs/decisions.md, "The admin role").
 */
export const ADMIN_ROLE = 'admin';

/** The roles the person holds, `admin` first: what the `roles` claim says. */
export const rolesOf = (user: Pick<UserRecord, 'roles'>): string[] => {
  const roles = user.roles ?? [];
  return roles.includes(ADMIN_ROLE) ? [ADMIN_ROLE, ...roles.filter((role) => role !== ADMIN_ROLE)] : [...roles];
};

/** Whether an operator gave the person the admin role. */
export const isAdmin = (user: Pick<UserRecord, 'roles'>): boolean => user.roles?.includes(ADMIN_ROLE) === true;

/** The admin API's search: people whose email or name starts with `prefix`, in id order. */
export const search = (prefix: string | undefined, after: string | undefined, limit: number): Promise<UserRecord[]> =>
  usersDao.search(prefix?.toLowerCase(), after, limit);

/** Gives (`held`) or takes a role; false when there is no such user. */
export const setRole = (id: string, role: string, held: boolean): Promise<boolean> => usersDao.setRole(id, role, held);

/** A role that was deleted is taken from everyone. */
export const dropRole = (role: string): Promise<void> => usersDao.dropRole(role);

/** The messages seed 000's routes use, shared with the account pages. */
export const EMAIL_TAKEN = 'User email already exists';
export const INVALID_CURRENT_PASSWORD = 'Invalid current password';

/** Another account has this email (the unique index, or the check before hashing). */
export class EmailTakenError extends BadRequestError {
  constructor() {
    super(EMAIL_TAKEN);
  }
}

const emailTaken = () => new EmailTakenError();

/** `requester`: the client address that asked, which the password-hashing queue serves in turn. */
export async function create(dto: CreateUserDto, requester?: Requester): Promise<string> {
  // Checked first so a duplicate costs no hashing; the unique index settles races.
  if (await usersDao.existsWithEmail(dto.email)) throw emailTaken();
  const password = await hashPassword(dto.password, requester);
  const uid = await nextSequenceValue('users.uid');
  try {
    return await usersDao.insert({
      uid,
      email: dto.email,
      password,
      firstName: dto.firstName,
      lastName: dto.lastName,
      claims: dto.claims,
      permissionFlags: DEFAULT_PERMISSION_FLAGS,
    });
  } catch (err) {
    if (isDuplicateKeyError(err)) throw emailTaken();
    throw err;
  }
}

export { cachedUsers, credentialsStamp, credentialsStampOf, databaseUsers, type SignInRecord, type UserStore } from './users.store';

export async function getById(id: string): Promise<UserRecord> {
  const user = await usersDao.findById(id);
  if (!user) throw new NotFoundError(`User ${id} not found`);
  return user;
}

/** The user, or null when there is none. */
export function findById(id: string): Promise<UserRecord | null> {
  return usersDao.findById(id);
}

/**
 * USERS_API_AUTH=jwt: a caller may act on their own record, an admin on anyone's; others get 403
 * whether the record exists or not, so ids cannot be probed.
 */
export function ensureMayManage(caller: UserRecord, targetId: string): void {
  if (caller._id !== targetId && !isAdmin(caller)) throw new ForbiddenError();
}

export function ensureMayList(caller: UserRecord): void {
  if (!isAdmin(caller)) throw new ForbiddenError();
}

export function list(page: number, limit: number): Promise<UserRecord[]> {
  return usersDao.list(page * limit, limit);
}

/**
 * PUT and PATCH alike: validation has already made PUT's fields all present. `caller` is the signed-in
 * user under USERS_API_AUTH=jwt (null in the open mode): only admins may change permission flags.
 * A new password ends every token, grant and session of the user.
 */
export async function update(
  user: UserRecord,
  dto: PatchUserDto,
  caller: UserRecord | null,
  endAccess: AccessEndedHook,
  requester?: Requester,
): Promise<void> {
  // The email identifies the account and cannot change: it may only repeat the stored one.
  if (dto.email !== undefined && dto.email !== user.email) throw new BadRequestError('Invalid email');
  if (caller && !isAdmin(caller) && dto.permissionFlags !== undefined && dto.permissionFlags !== user.permissionFlags) {
    throw new BadRequestError('User cannot change permission flags');
  }
  const { password, ...fields } = dto;
  const changes: UserChanges = { ...fields };
  if (password !== undefined) {
    changes.password = await hashPassword(password, requester);
    changes.credentialsChangedAt = new Date();
  }
  if (!(await usersDao.update(user._id, changes))) throw new NotFoundError(`User ${user._id} not found`);
  if (password !== undefined) await endAccess(user._id);
}

/** The account page's profile: names, picture and claims replaced as a whole (an empty one is removed). */
export async function replaceProfile(
  id: string,
  profile: { firstName?: string; lastName?: string; avatarUrl?: string; claims: UserRecord['claims'] },
): Promise<void> {
  if (!(await usersDao.replaceFields(id, profile))) throw new NotFoundError(`User ${id} not found`);
}

/** Deletes the user and ends everything issued to them. */
export async function remove(id: string, endAccess: AccessEndedHook): Promise<void> {
  if (!(await usersDao.remove(id))) throw new NotFoundError(`User ${id} not found`);
  await endAccess(id);
}

/** Gives the user with this email the admin role (the first admin comes from the command line); false when there is none. */
export async function grantAdmin(email: string): Promise<boolean> {
  const user = await usersDao.findByEmail(normalizeEmail(email));
  return user !== null && usersDao.setRole(user._id, ADMIN_ROLE, true);
}

/** The person revoked a connected application at `at`: their tokens for it issued before then are dead. */
export const recordAppRevoked = (id: string, clientId: string, at: Date, keepAfter: Date): Promise<boolean> =>
  usersDao.recordAppRevoked(id, clientId, at, keepAfter);

/** When the person last revoked the application, if they did. */
export const appRevokedAt = (user: Pick<UserRecord, 'revokedApps'>, clientId: string): Date | undefined =>
  user.revokedApps?.find((entry) => entry.clientId === clientId)?.at;

/** See users.dao.ts: keys for people stored before keys existed (src/migrations.ts). */
export const writeMissingKeys = (): Promise<number> => usersDao.writeMissingKeys();

/** See users.dao.ts changeSecondFactors: how factors are added and removed. */
export const changeSecondFactors = usersDao.changeSecondFactors;

/** The user with this email (normalised here), or null. */
export function findByEmail(email: string): Promise<UserRecord | null> {
  return usersDao.findByEmail(normalizeEmail(email));
}

/** The user may be signed in to (exists and is not disabled). */
export const isActive = (user: UserRecord | null): user is UserRecord => user !== null && user.disabled !== true;

/** The verification link was followed: true when this changed the record (the email is still the user's). */
export function markEmailVerified(id: string, email: string): Promise<boolean> {
  return usersDao.markEmailVerified(id, email);
}

/**
 * An operator disables an account (it cannot sign in anywhere, and everything issued to it ends) or
 * enables it again. False when there is no such user.
 */
export async function setDisabled(id: string, disabled: boolean, endAccess: AccessEndedHook): Promise<boolean> {
  if (!(await usersDao.setDisabled(id, disabled))) return false;
  if (disabled) await endAccess(id);
  return true;
}

export function upgradePasswordHash(id: string, passwordHash: string): Promise<void> {
  return usersDao.setPasswordHash(id, passwordHash);
}

/** The user linked to this provider account, or null. Only the provider's id links accounts, never the email. */
export async function findIdByProviderAccount(provider: ProviderName, providerId: string): Promise<string | null> {
  return (await usersDao.findIdByProviderId(providerIdField(provider), providerId))?._id ?? null;
}

/**
 * Creates a user for a provider account. An email another user already has is left out rather than
 * linking or merging the accounts.
 */
export async function createFromProvider(provider: ProviderName, account: ProviderAccount): Promise<string> {
  const email = account.email && !(await usersDao.existsWithEmail(account.email)) ? account.email : undefined;
  const user = {
    uid: await nextSequenceValue('users.uid'),
    [providerIdField(provider)]: account.providerId,
    email,
    firstName: account.firstName,
    lastName: account.lastName,
    avatarUrl: account.avatarUrl,
    permissionFlags: DEFAULT_PERMISSION_FLAGS,
    ...(email && account.emailVerified ? { emailVerified: true } : {}),
  };
  try {
    return await usersDao.insert(user);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    // The same account signing in twice at once: the other request created the user.
    const existing = await findIdByProviderAccount(provider, account.providerId);
    if (existing) return existing;
    // The email was taken in the meantime: create the user without it.
    return usersDao.insert({ ...user, email: undefined, emailVerified: undefined });
  }
}

/** An id for a user about to be made (an upstream sign-in links it before the user is inserted). */
export const newUserId = (): string => shortid.generate();

/**
 * Creates a person who signed up through an upstream provider, with the address it vouched for
 * (verified) and no password; false when another account has that address by now.
 */
export async function createFederated(
  id: string,
  account: { email: string; firstName?: string; lastName?: string; avatarUrl?: string },
  now?: Date,
): Promise<boolean> {
  try {
    await usersDao.insert(
      {
        _id: id,
        uid: await nextSequenceValue('users.uid'),
        email: account.email,
        emailVerified: true,
        firstName: account.firstName,
        lastName: account.lastName,
        avatarUrl: account.avatarUrl,
        permissionFlags: DEFAULT_PERMISSION_FLAGS,
      },
      now,
    );
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

/** Whether the person has a password (an account made through a provider may have none yet). */
export async function hasPassword(id: string): Promise<boolean> {
  return (await usersDao.directWaysIn(id)).password;
}

/** Whether the person has a password or a GitHub account to sign in with. */
export async function hasDirectWayIn(id: string): Promise<boolean> {
  const ways = await usersDao.directWaysIn(id);
  return ways.password || ways.github;
}

/** Name and picture follow the provider at each sign-in; the provider id and email never change here. */
export function refreshFromProvider(id: string, account: ProviderAccount): Promise<void> {
  return usersDao.refreshFields(id, { firstName: account.firstName, lastName: account.lastName, avatarUrl: account.avatarUrl });
}
