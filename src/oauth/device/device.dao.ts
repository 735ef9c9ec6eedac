// The only importer of the device authorization model; returns plain objects.
import { trusted } from 'mongoose';
import {
  DeviceAuthorizationModel,
  DeviceUserCodeModel,
  type DeviceAuthorizationDocument,
  type DeviceUserCodeDocument,
} from './device.model';
import { withRecordLock } from '../../db/record-lock';
import { isDuplicateKeyError } from '../../db/duplicate-key';

/**
 * Stores the authorization under its user code's key, written first (a unique insert: two
 * authorizations never share a user code, on any engine); false when the user code is taken.
 */
export async function insert(doc: DeviceAuthorizationDocument): Promise<boolean> {
  try {
    await DeviceUserCodeModel.create({ _id: doc.userCodeHash, deviceId: doc._id, expiresAt: doc.expiresAt });
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
  try {
    await DeviceAuthorizationModel.create(doc);
  } catch (err) {
    await forgetUserCode(doc.userCodeHash, doc._id);
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
  return true;
}

/**
 * Deletes a user code's key, only while it names this authorization (read, then deleted by `_id`: a
 * key names one authorization for as long as it lives, so it cannot change between the two).
 */
async function forgetUserCode(userCodeHash: string, deviceId: string): Promise<void> {
  const key = await DeviceUserCodeModel.findById(userCodeHash).lean<DeviceUserCodeDocument>().exec();
  if (key?.deviceId === deviceId) await DeviceUserCodeModel.deleteOne({ _id: userCodeHash }).exec();
}

export function find(hash: string): Promise<DeviceAuthorizationDocument | null> {
  return DeviceAuthorizationModel.findById(hash).lean<DeviceAuthorizationDocument>().exec();
}

/** A pending, unexpired authorization by its user code: its key, then the authorization, each by `_id`. */
export async function findPendingByUserCode(userCodeHash: string, now: Date): Promise<DeviceAuthorizationDocument | null> {
  const key = await DeviceUserCodeModel.findById(userCodeHash).lean<DeviceUserCodeDocument>().exec();
  if (!key || key.expiresAt <= now) return null;
  const found = await find(key.deviceId);
  return found && found.userCodeHash === userCodeHash && found.status === 'pending' && found.expiresAt > now ? found : null;
}

/** Records the person's decision; false when the authorization is no longer pending. */
export async function decide(
  hash: string,
  decision: Pick<DeviceAuthorizationDocument, 'status' | 'userId' | 'authTime' | 'amr'>,
): Promise<boolean> {
  // Under the record's lock: FerretDB does not make "update where still pending" atomic, and two
  // decisions sent at once must not both count.
  // Read and written by `_id` alone, the filter every engine keys.
  return withRecordLock(`device-authorization:${hash}`, async () => {
    if ((await find(hash))?.status !== 'pending') return false;
    const { modifiedCount } = await DeviceAuthorizationModel.updateOne({ _id: hash }, { $set: decision }).exec();
    return modifiedCount === 1;
  });
}

export async function recordPoll(hash: string, now: Date, interval: number): Promise<void> {
  await DeviceAuthorizationModel.updateOne({ _id: hash }, { $set: { lastPolledAt: now, interval } }).exec();
}

/** Removes the authorization and its user code's key; true only for the one caller that removed it (single use). */
export async function take(authorization: Pick<DeviceAuthorizationDocument, '_id' | 'userCodeHash'>): Promise<boolean> {
  const { deletedCount } = await DeviceAuthorizationModel.deleteOne({ _id: authorization._id }).exec();
  if (deletedCount !== 1) return false;
  await forgetUserCode(authorization.userCodeHash, authorization._id);
  return true;
}

export async function deleteExpired(now: Date): Promise<void> {
  await Promise.all([
    DeviceAuthorizationModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec(),
    DeviceUserCodeModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec(),
  ]);
}
