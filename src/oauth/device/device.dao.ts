// The only importer of the device authorization model; returns plain objects.
import { trusted } from 'mongoose';
import { DeviceAuthorizationModel, type DeviceAuthorizationDocument } from './device.model';
import { withRecordLock } from '../../db/record-lock';

export async function insert(doc: DeviceAuthorizationDocument): Promise<void> {
  await DeviceAuthorizationModel.create(doc);
}

export function find(hash: string): Promise<DeviceAuthorizationDocument | null> {
  return DeviceAuthorizationModel.findById(hash).lean<DeviceAuthorizationDocument>().exec();
}

/** A pending, unexpired authorization by its user code. */
export function findPendingByUserCode(userCodeHash: string, now: Date): Promise<DeviceAuthorizationDocument | null> {
  return DeviceAuthorizationModel.findOne({ userCodeHash, status: 'pending', expiresAt: trusted({ $gt: now }) })
    .lean<DeviceAuthorizationDocument>()
    .exec();
}

/** Records the person's decision; false when the authorization is no longer pending. */
export async function decide(
  hash: string,
  decision: Pick<DeviceAuthorizationDocument, 'status' | 'userId' | 'authTime' | 'amr'>,
): Promise<boolean> {
  // Under the record's lock: FerretDB does not make "update where still pending" atomic, and two
  // decisions sent at once must not both count.
  return withRecordLock(`device-authorization:${hash}`, async () => {
    const { modifiedCount } = await DeviceAuthorizationModel.updateOne({ _id: hash, status: 'pending' }, { $set: decision }).exec();
    return modifiedCount === 1;
  });
}

export async function recordPoll(hash: string, now: Date, interval: number): Promise<void> {
  await DeviceAuthorizationModel.updateOne({ _id: hash }, { $set: { lastPolledAt: now, interval } }).exec();
}

/** Removes the authorization; true only for the one caller that removed it (single use). */
export async function take(hash: string): Promise<boolean> {
  const { deletedCount } = await DeviceAuthorizationModel.deleteOne({ _id: hash }).exec();
  return deletedCount === 1;
}

export async function deleteExpired(now: Date): Promise<void> {
  await DeviceAuthorizationModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
}
