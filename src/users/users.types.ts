import type { StoredClaims } from './users.claims';

export { CLAIMS_SCHEMA } from './users.claims';
import type { UserDocument } from './users.model';

/** A user as stored, without the password hash. */
export type UserRecord = Omit<UserDocument, 'password'>;

/** What reads return: seed 000's fields only (no password, uid or provider ids). */
export interface UserRead {
  _id: string;
  /** Absent only for a provider user without a usable email. */
  email?: string;
  permissionFlags: number;
  __v: number;
  firstName?: string;
  lastName?: string;
  /** Present once the person shares any (users.claims.ts). */
  claims?: StoredClaims;
}

export interface CreateUserDto {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
  claims?: StoredClaims;
}

export interface PutUserDto {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  permissionFlags: number;
  claims?: StoredClaims;
}

export type PatchUserDto = Partial<PutUserDto>;

/** The stored fields a PUT or PATCH may set, the password already hashed. */
export type UserChanges = Partial<Omit<UserDocument, '_id' | 'uid' | '__v'>>;

/** What an identity provider tells us about an account, mapped to our fields. */
export interface ProviderAccount {
  providerId: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  avatarUrl?: string;
  /** The provider vouches that the person receives mail at `email` (GitHub: the verified primary address). */
  emailVerified?: boolean;
}

export function toUserRead(user: UserRecord): UserRead {
  const read: UserRead = { _id: user._id, email: user.email, permissionFlags: user.permissionFlags, __v: user.__v };
  if (user.email === undefined) delete read.email;
  if (user.firstName !== undefined) read.firstName = user.firstName;
  if (user.lastName !== undefined) read.lastName = user.lastName;
  if (user.claims !== undefined && Object.keys(user.claims).length > 0) read.claims = user.claims;
  return read;
}

/** How a person is named to applications: their name, else their email, else their user number. */
export function displayName(user: UserRecord): string {
  return `${user.firstName ?? ''} ${user.lastName ?? ''}`.trim() || user.email || `user ${user.uid}`;
}
