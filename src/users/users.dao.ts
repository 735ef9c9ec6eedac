// The only importer of the user model; every function returns plain objects.
import { mongo, trusted } from 'mongoose';
import shortid from 'shortid';
import { changeSignal } from '../db/change-signals';
import { isDuplicateKeyError } from '../db/duplicate-key';
import { withRecordLock } from '../db/record-lock';
import { startsWith } from '../db/starts-with';
import { PROVIDER_NAMES, providerIdField, type ProviderIdField } from './users.providers';
import { UserKeyModel, UserModel, type UserDocument, type UserKeyDocument } from './users.model';
import type { UserChanges, UserRecord } from './users.types';

const READ_FIELDS =
  '_id uid email firstName lastName permissionFlags avatarUrl claims updatedAt credentialsChangedAt emailVerified disabled secondFactor factorKinds roles revokedApps __v';

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

// ---- Keys: a person is found by email or provider account through a record whose _id is the value.

/** A key left without its user for longer than this is left over from a write that never finished. */
const KEY_GRACE_MS = 60_000;

type KeyedFields = Partial<Pick<UserDocument, 'email' | ProviderIdField>>;

/** The key of an email as the user model stores it (trimmed, lower case). */
const emailKey = (email: string) => `email:${email.trim().toLowerCase()}`;
const providerKey = (field: ProviderIdField, id: string) => `${field}:${id}`;

/** Every key a record is found by: its email and each provider account it has. */
function keysOf(user: KeyedFields): string[] {
  const providers = PROVIDER_NAMES.map(providerIdField).filter((field) => typeof user[field] === 'string');
  return [...(user.email ? [emailKey(user.email)] : []), ...providers.map((field) => providerKey(field, user[field]!))];
}

/** Whether the user holds the value the key names (a key can outlive a write that never finished). */
function holds(user: KeyedFields | null, key: string): boolean {
  return user !== null && keysOf(user).includes(key);
}

/** A value another account has: the same E11000 the unique index would give, naming the key. */
export class KeyTakenError extends Error {
  readonly code = 11000;
  constructor(readonly key: string) {
    super(`E11000 duplicate key: ${key.slice(0, key.indexOf(':'))} already taken`);
  }
}

const keyLock = <T>(key: string, work: () => Promise<T>) => withRecordLock(`user-key:${key}`, work);

/** Takes a key another insert holds, if it is left over (older than the grace, naming nobody who holds it). */
async function takeOver(key: string, userId: string, now: Date): Promise<void> {
  await keyLock(key, async () => {
    const held = await UserKeyModel.findById(key).lean<UserKeyDocument>().exec();
    if (held) {
      const young = now.getTime() - held.createdAt.getTime() < KEY_GRACE_MS;
      if (young || held.userId === userId || holds(await keyedFieldsOf(held.userId), key)) throw new KeyTakenError(key);
      await UserKeyModel.deleteOne({ _id: key }).exec();
    }
    await UserKeyModel.collection.insertOne({ _id: key as never, userId, createdAt: now });
  });
}

/** Writes the user's keys (one insert); a key taken by another account throws KeyTakenError and leaves none behind. */
async function claimKeys(userId: string, keys: string[], now: Date): Promise<void> {
  if (keys.length === 0) return;
  const createdAt = now;
  let taken: string[] = [];
  try {
    await UserKeyModel.collection.insertMany(
      keys.map((key) => ({ _id: key as never, userId, createdAt })),
      { ordered: false },
    );
  } catch (err) {
    const failed = err instanceof mongo.MongoBulkWriteError ? ([] as { index: number; code: number }[]).concat(err.writeErrors) : [];
    if (failed.length === 0 || failed.some((write) => write.code !== 11000)) throw err;
    taken = failed.map((write) => keys[write.index]);
  }
  try {
    for (const key of taken) await takeOver(key, userId, now);
  } catch (err) {
    await releaseKeys(userId, keys);
    throw err;
  }
}

/** Removes the user's keys that still name them, each under its lock (a takeover may be under way). */
async function releaseKeys(userId: string, keys: string[]): Promise<void> {
  for (const key of keys)
    await keyLock(key, async () => {
      const held = await UserKeyModel.findById(key, { userId: 1 }).lean<Pick<UserKeyDocument, 'userId'>>().exec();
      if (held?.userId === userId) await UserKeyModel.deleteOne({ _id: key }).exec();
    });
}

const KEYED_FIELDS = ['email', ...PROVIDER_NAMES.map(providerIdField)].join(' ');

function keyedFieldsOf(id: string): Promise<KeyedFields | null> {
  return UserModel.findById(id, KEYED_FIELDS).lean<KeyedFields>().exec();
}

// No user has this id (shortid never makes a space): what a miss reads when it must cost what a hit does.
const NO_USER = 'no such user';

/**
 * The user a key names, read with `fields`, if they still hold it; null otherwise. Two reads by _id,
 * and with `evenIfUnheld` two for a key nobody holds as well, so the time does not tell them apart.
 */
async function findByKey<T>(key: string, fields: string, evenIfUnheld = false): Promise<T | null> {
  const held = await UserKeyModel.findById(key, { userId: 1 }).lean<Pick<UserKeyDocument, 'userId'>>().exec();
  if (!held && !evenIfUnheld) return null;
  const user = await UserModel.findById(held?.userId ?? NO_USER, `${fields} ${KEYED_FIELDS}`)
    .lean<T & KeyedFields>()
    .exec();
  if (!held) return null;
  if (!holds(user, key)) return null;
  // Read to check the key; not part of what was asked for (a provider id is never in a user read).
  const asked = new Set(fields.split(' '));
  for (const field of KEYED_FIELDS.split(' ')) if (!asked.has(field)) delete (user as Record<string, unknown>)[field];
  return user;
}

/**
 * Writes the keys of every user that lacks them (records written before keys existed), once per
 * database (src/migrations.ts): a user without keys cannot be found by email or provider account;
 * and the search keys of their names.
 */
export async function writeMissingKeys(): Promise<number> {
  let written = 0;
  const createdAt = new Date();
  const fields = `_id ${KEYED_FIELDS} firstName lastName nameKeys`;
  type Stored = KeyedFields & { _id: string; firstName?: string; lastName?: string; nameKeys?: string[] };
  for await (const user of UserModel.find({}, fields).lean<Stored>().cursor({ batchSize: 1000 })) {
    // The search keys of the names too, which records of before did not have.
    const nameKeys = nameKeysOf(user);
    if (nameKeys && nameKeys.join('\n') !== (user.nameKeys ?? []).join('\n'))
      await UserModel.updateOne({ _id: user._id }, { $set: { nameKeys } }).exec();
    for (const key of keysOf(user)) {
      try {
        await UserKeyModel.collection.insertOne({ _id: key as never, userId: user._id, createdAt });
        written += 1;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    }
  }
  return written;
}

// ---- Records

/** The lower-case names a record is searched by, from its names (absent when it has none). */
function nameKeysOf(names: { firstName?: string; lastName?: string }): string[] | undefined {
  const keys = [names.firstName, names.lastName].filter((name): name is string => Boolean(name)).map((name) => name.toLowerCase());
  return keys.length > 0 ? keys : undefined;
}

/**
 * Adds the search keys to an update (`set`, `unset`) that sets or removes a name: the names it leaves,
 * the other one read from the record (its callers hold the record's lock).
 */
async function addNameKeys(id: string, set: Record<string, unknown>, unset: Record<string, 1>): Promise<void> {
  const names = ['firstName', 'lastName'] as const;
  if (!names.some((name) => set[name] !== undefined || name in unset)) return;
  const stored = await UserModel.findById(id, { firstName: 1, lastName: 1 }).lean<{ firstName?: string; lastName?: string }>().exec();
  const left = Object.fromEntries(
    names.map((name) => [name, name in unset ? undefined : ((set[name] as string | undefined) ?? stored?.[name])]),
  );
  const keys = nameKeysOf(left);
  if (keys) set.nameKeys = keys;
  else unset.nameKeys = 1;
}

/**
 * Inserts the user after their keys (KeyTakenError, an E11000, when another account holds one); the
 * new id. `now`: the caller's clock, which says when a key whose user never came is left over.
 */
export async function insert(
  user: Omit<UserRecord, '_id' | '__v'> & { password?: string; _id?: string } & KeyedFields,
  now = new Date(),
): Promise<string> {
  const id = user._id ?? shortid.generate();
  const keys = keysOf(user);
  await claimKeys(id, keys, now);
  try {
    // A new account has no second factor.
    await UserModel.create({ secondFactor: false, ...user, nameKeys: nameKeysOf(user), _id: id });
  } catch (err) {
    await releaseKeys(id, keys);
    throw err;
  }
  return id;
}

/** How the person can sign in besides upstream providers: a password, a GitHub account. */
export async function directWaysIn(id: string): Promise<{ password: boolean; github: boolean }> {
  const found = await UserModel.findById(id, { password: 1, github_id: 1 }).lean<{ password?: string; github_id?: string }>().exec();
  return { password: typeof found?.password === 'string', github: typeof found?.github_id === 'string' };
}

export function findById(id: string): Promise<UserRecord | null> {
  return UserModel.findById(id, READ_FIELDS).lean<UserRecord>().exec();
}

export async function existsWithEmail(email: string): Promise<boolean> {
  return (await findByKey(emailKey(email), '_id')) !== null;
}

export type StoredCredentials = UserRecord & { password?: string };

/**
 * The whole record and its password hash, for signing in: the key, then the record, two reads by _id
 * whether anyone holds the email or not (a wrong password and an unknown email take the same time).
 */
export function findPasswordHashByEmail(email: string): Promise<StoredCredentials | null> {
  return findByKey<StoredCredentials>(emailKey(email), `${READ_FIELDS} +password`, true);
}

export function findByEmail(email: string): Promise<UserRecord | null> {
  return findByKey<UserRecord>(emailKey(email), READ_FIELDS);
}

/**
 * People whose email or name starts with `prefix` (lower case), in id order after `after`: ranges of
 * the email index and of the stored lower-case names' (nameKeys), on MongoDB.
 */
export function search(prefix: string | undefined, after: string | undefined, limit: number): Promise<UserRecord[]> {
  const query: Record<string, unknown> = {};
  if (prefix) {
    query.$or = [{ email: startsWith(prefix) }, { nameKeys: startsWith(prefix) }];
  }
  if (after) query._id = trusted({ $gt: after });
  return UserModel.find(query, READ_FIELDS).sort({ _id: 1 }).limit(limit).lean<UserRecord[]>().exec();
}

/** Users in creation order. */
export function list(skip: number, limit: number): Promise<UserRecord[]> {
  return UserModel.find({}, READ_FIELDS).sort({ uid: 1 }).skip(skip).limit(limit).lean<UserRecord[]>().exec();
}

// Every update of a user goes through the record lock, so none is lost and __v counts each one.
const locked = <T>(id: string, work: () => Promise<T>) => withRecordLock(`users:${id}`, work);

/** Applies the changes and bumps the version counter; false when the user is gone. */
export async function update(id: string, changes: UserChanges): Promise<boolean> {
  const result = await locked(id, async () => {
    const set: Record<string, unknown> = { ...changes, updatedAt: new Date() };
    const unset: Record<string, 1> = {};
    await addNameKeys(id, set, unset);
    return UserModel.updateOne(
      { _id: id },
      { $set: set, ...(Object.keys(unset).length > 0 ? { $unset: unset } : {}), $inc: { __v: 1 } },
    ).exec();
  });
  return raisedIf(result.matchedCount === 1);
}

/** Marks the email verified, if the user still has this email; false otherwise (or when it already was). */
export async function markEmailVerified(id: string, email: string): Promise<boolean> {
  // Decided on the record read under its lock, then written by _id alone (the filter every engine keys).
  const changed = await locked(id, async () => {
    const user = await UserModel.findById(id, { email: 1, emailVerified: 1 }).lean<Pick<UserDocument, 'email' | 'emailVerified'>>().exec();
    if (!user || user.email !== email || user.emailVerified === true) return false;
    await UserModel.updateOne({ _id: id }, { $set: { emailVerified: true, updatedAt: new Date() }, $inc: { __v: 1 } }).exec();
    return true;
  });
  return raisedIf(changed);
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
  const result = await locked(id, async () => {
    await addNameKeys(id, set, unset);
    return UserModel.updateOne({ _id: id }, { $set: set, $unset: unset, $inc: { __v: 1 } }).exec();
  });
  return raisedIf(result.matchedCount === 1);
}

/** Replaces the stored hash without counting it as an update of the record (no read caches the hash). */
export async function setPasswordHash(id: string, passwordHash: string): Promise<void> {
  await locked(id, () => UserModel.updateOne({ _id: id }, { $set: { password: passwordHash } }).exec());
}

/** Deletes the user, then their keys. */
export async function remove(id: string): Promise<boolean> {
  const user = await keyedFieldsOf(id);
  const result = await UserModel.deleteOne({ _id: id }).exec();
  if (user) await releaseKeys(id, keysOf(user));
  return raisedIf(result.deletedCount === 1);
}

export async function findIdByProviderId(field: ProviderIdField, providerId: string): Promise<{ _id: string } | null> {
  const user = await findByKey<{ _id: string }>(providerKey(field, providerId), '_id');
  return user && { _id: user._id };
}

/**
 * Sets the defined fields and removes the undefined ones, bumping the version counter only when
 * something actually changes (compared with the record read under its lock).
 */
export async function refreshFields(id: string, fields: Record<string, string | undefined>): Promise<void> {
  const changed = await locked(id, async () => {
    const user = await UserModel.findById(id, Object.keys(fields).join(' ')).lean<Record<string, unknown>>().exec();
    if (!user) return false;
    const set: Record<string, string> = {};
    const unset: Record<string, 1> = {};
    for (const [field, value] of Object.entries(fields)) {
      if (value === undefined && user[field] !== undefined) unset[field] = 1;
      else if (value !== undefined && user[field] !== value) set[field] = value;
    }
    if (Object.keys(set).length + Object.keys(unset).length === 0) return false;
    await addNameKeys(id, set, unset);
    await UserModel.updateOne({ _id: id }, { $set: { ...set, updatedAt: new Date() }, $unset: unset, $inc: { __v: 1 } }).exec();
    return true;
  });
  await raisedIf(changed);
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

/**
 * Records that the person revoked the application now (`at`), forgetting revocations from before
 * `keepAfter` (no token of theirs can be unexpired); false when the user is gone.
 */
export async function recordAppRevoked(id: string, clientId: string, at: Date, keepAfter: Date): Promise<boolean> {
  return locked(id, async () => {
    const user = await UserModel.findById(id, { revokedApps: 1 }).lean<Pick<UserDocument, 'revokedApps'>>().exec();
    if (!user) return false;
    const kept = (user.revokedApps ?? []).filter((entry) => entry.clientId !== clientId && entry.at > keepAfter);
    await UserModel.updateOne({ _id: id }, { $set: { revokedApps: [...kept, { clientId, at }] }, $inc: { __v: 1 } }).exec();
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
