// The only importer of the user model; every function returns plain objects.
import { trusted } from 'mongoose';
import { changeSignal } from '../db/change-signals';
import { withRecordLock } from '../db/record-lock';
import type { ProviderIdField } from './users.providers';
import { UserModel } from './users.model';
import type { UserChanges, UserRecord } from './users.types';

const READ_FIELDS =
  '_id uid email firstName lastName permissionFlags avatarUrl claims updatedAt credentialsChangedAt emailVerified disabled secondFactor factorKinds roles __v';

/**
 * Raised after every change to a user's record or its removal, for the caches of user reads on every
 * instance (users.service.ts); a write that changed nothing raises nothing.
 */
export const usersChanged = changeSignal('users');

/** Passes `changed` through, raising the signal first when it is true. */
async function raisedIf(changed: boolean): Promise<boolean> {
  if (changed) await usersChanged.raise();
  return changed;
}

export async function insert(user: Omit<UserRecord, '_id' | '__v'> & { password?: string; _id?: string }): Promise<string> {
  // A new account has no second factor.
  const created = await UserModel.create({ secondFactor: false, ...user });
  return created._id;
}

/** How the person can sign in besides upstream providers: a password, a GitHub account. */
export async function directWaysIn(id: string): Promise<{ password: boolean; github: boolean }> {
  const found = await UserModel.findById(id, { password: 1, github_id: 1 }).lean<{ password?: string; github_id?: string }>().exec();
  return { password: typeof found?.password === 'string', github: typeof found?.github_id === 'string' };
}

export function findById(id: string): Promise<UserRecord | null> {
  return UserModel.findById(id, READ_FIELDS).lean<UserRecord>().exec();
}

export function existsWithEmail(email: string): Promise<boolean> {
  return UserModel.exists({ email }).then((found) => found !== null);
}

export type StoredCredentials = UserRecord & { password?: string };

/** The whole record and its password hash, for signing in (one read serves both). */
export function findPasswordHashByEmail(email: string): Promise<StoredCredentials | null> {
  return UserModel.findOne({ email }, `${READ_FIELDS} +password`).lean<StoredCredentials>().exec();
}

export function findByEmail(email: string): Promise<UserRecord | null> {
  return UserModel.findOne({ email }, READ_FIELDS).lean<UserRecord>().exec();
}

/** Users in creation order. */
/** People whose email or name starts with `prefix` (any case for names), in id order after `after`. */
export function search(prefix: string | undefined, after: string | undefined, limit: number): Promise<UserRecord[]> {
  const query: Record<string, unknown> = {};
  if (prefix) {
    const start = `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    query.$or = [
      { email: trusted({ $regex: start }) },
      { firstName: trusted({ $regex: start, $options: 'i' }) },
      { lastName: trusted({ $regex: start, $options: 'i' }) },
    ];
  }
  if (after) query._id = trusted({ $gt: after });
  return UserModel.find(query, READ_FIELDS).sort({ _id: 1 }).limit(limit).lean<UserRecord[]>().exec();
}

export function list(skip: number, limit: number): Promise<UserRecord[]> {
  return UserModel.find({}, READ_FIELDS).sort({ uid: 1 }).skip(skip).limit(limit).lean<UserRecord[]>().exec();
}

// Every update of a user goes through the record lock, so none is lost and __v counts each one.
const locked = <T>(id: string, work: () => Promise<T>) => withRecordLock(`users:${id}`, work);

/** Applies the changes and bumps the version counter; false when the user is gone. */
export async function update(id: string, changes: UserChanges): Promise<boolean> {
  const result = await locked(id, () =>
    UserModel.updateOne({ _id: id }, { $set: { ...changes, updatedAt: new Date() }, $inc: { __v: 1 } }).exec(),
  );
  return raisedIf(result.matchedCount === 1);
}

/** Marks the email verified, if the user still has this email; false otherwise (or when it already was). */
export async function markEmailVerified(id: string, email: string): Promise<boolean> {
  const result = await locked(id, () =>
    UserModel.updateOne(
      { _id: id, email, emailVerified: trusted({ $ne: true }) },
      { $set: { emailVerified: true, updatedAt: new Date() }, $inc: { __v: 1 } },
    ).exec(),
  );
  return raisedIf(result.modifiedCount === 1);
}

/** Disables or enables the account; disabling also ends every earlier credential (the stamp). False when the user is gone. */
export async function setDisabled(id: string, disabled: boolean): Promise<boolean> {
  const update = disabled
    ? { $set: { disabled: true, credentialsChangedAt: new Date() }, $inc: { __v: 1 } }
    : { $unset: { disabled: 1 }, $inc: { __v: 1 } };
  const result = await locked(id, () => UserModel.updateOne({ _id: id }, update).exec());
  return raisedIf(result.matchedCount === 1);
}

/** Sets the defined fields and removes the undefined ones, as one update; false when the user is gone. */
export async function replaceFields(id: string, fields: Record<string, unknown>): Promise<boolean> {
  const set: Record<string, unknown> = { updatedAt: new Date() };
  const unset: Record<string, 1> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (value === undefined) unset[field] = 1;
    else set[field] = value;
  }
  const result = await locked(id, () => UserModel.updateOne({ _id: id }, { $set: set, $unset: unset, $inc: { __v: 1 } }).exec());
  return raisedIf(result.matchedCount === 1);
}

/** Replaces the stored hash without counting it as an update of the record (no read caches the hash). */
export async function setPasswordHash(id: string, passwordHash: string): Promise<void> {
  await locked(id, () => UserModel.updateOne({ _id: id }, { $set: { password: passwordHash } }).exec());
}

export async function remove(id: string): Promise<boolean> {
  const result = await UserModel.deleteOne({ _id: id }).exec();
  return raisedIf(result.deletedCount === 1);
}

export function findIdByProviderId(field: ProviderIdField, providerId: string): Promise<{ _id: string } | null> {
  return UserModel.findOne({ [field]: providerId }, { _id: 1 })
    .lean<{ _id: string }>()
    .exec();
}

/**
 * Sets the defined fields and removes the undefined ones, bumping the version counter only when
 * something actually changes.
 */
export async function refreshFields(id: string, fields: Record<string, string | undefined>): Promise<void> {
  const set: Record<string, string> = {};
  const unset: Record<string, 1> = {};
  const differs = Object.entries(fields).map(([field, value]) => {
    if (value === undefined) {
      unset[field] = 1;
      return { [field]: trusted({ $exists: true }) };
    }
    set[field] = value;
    return { [field]: trusted({ $ne: value }) };
  });
  const result = await locked(id, () =>
    UserModel.updateOne({ _id: id, $or: differs }, { $set: { ...set, updatedAt: new Date() }, $unset: unset, $inc: { __v: 1 } }).exec(),
  );
  await raisedIf(result.modifiedCount === 1);
}

/** Gives or takes one role under the record's lock (`admin` like any other); false when the user is gone. */
export async function setRole(id: string, role: string, held: boolean): Promise<boolean> {
  return locked(id, async () => {
    const user = await findById(id);
    if (!user) return false;
    const before = user.roles ?? [];
    if (before.includes(role) === held) return true;
    const roles = held ? [...before, role].sort() : before.filter((name) => name !== role);
    const update = roles.length ? { $set: { roles } } : { $unset: { roles: 1 } };
    await UserModel.updateOne({ _id: id }, { ...update, $inc: { __v: 1 } }).exec();
    await usersChanged.raise();
    return true;
  });
}

/** Takes a role that no longer exists from everyone who held it. */
export async function dropRole(role: string): Promise<void> {
  const result = await UserModel.updateMany({ roles: role }, { $pull: { roles: role }, $inc: { __v: 1 } }).exec();
  await raisedIf(result.modifiedCount > 0);
}

/**
 * Adds or removes a second factor (`change`) under the record's lock, keeping `secondFactor` true
 * (and `factorKinds` both true) while it runs, and afterwards what `kindsNow` finds: a sign-in that
 * reads false can trust that no factor exists, and one that reads the kinds need not look. Raises
 * the users signal (the hint is in the cached records).
 */
export async function changeSecondFactors<T>(
  id: string,
  change: () => Promise<T>,
  kindsNow: () => Promise<{ totp: boolean; passkeys: boolean } | null>,
): Promise<T> {
  return locked(id, async () => {
    await UserModel.updateOne({ _id: id }, { $set: { secondFactor: true, factorKinds: { totp: true, passkeys: true } } }).exec();
    await usersChanged.raise();
    try {
      return await change();
    } finally {
      const kinds = await kindsNow();
      const settled = kinds
        ? { $set: { secondFactor: true, factorKinds: kinds } }
        : { $set: { secondFactor: false }, $unset: { factorKinds: 1 } };
      await UserModel.updateOne({ _id: id }, settled).exec();
      await usersChanged.raise();
    }
  });
}
