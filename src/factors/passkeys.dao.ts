// The only importer of the passkey and challenge models.
import { trusted } from 'mongoose';
import { ChallengeModel, PasskeyModel, type ChallengeDocument, type PasskeyDocument } from './passkeys.model';

export function listFor(userId: string): Promise<PasskeyDocument[]> {
  return PasskeyModel.find({ userId }).sort({ createdAt: 1, _id: 1 }).lean<PasskeyDocument[]>().exec();
}

export function countFor(userId: string): Promise<number> {
  return PasskeyModel.countDocuments({ userId }).exec();
}

export function find(id: string): Promise<PasskeyDocument | null> {
  return PasskeyModel.findById(id).lean<PasskeyDocument>().exec();
}

export async function insert(passkey: PasskeyDocument): Promise<void> {
  await PasskeyModel.create(passkey);
}

export async function recordUse(id: string, counter: number): Promise<void> {
  await PasskeyModel.updateOne({ _id: id }, { $set: { counter, lastUsedAt: new Date() } }).exec();
}

export async function rename(userId: string, id: string, name: string): Promise<boolean> {
  return (await PasskeyModel.updateOne({ _id: id, userId }, { $set: { name } }).exec()).matchedCount === 1;
}

export async function remove(userId: string, id: string): Promise<boolean> {
  return (await PasskeyModel.deleteOne({ _id: id, userId }).exec()).deletedCount === 1;
}

export async function insertChallenge(challenge: ChallengeDocument): Promise<void> {
  await ChallengeModel.create(challenge);
}

/** Takes the challenge: the one caller (of any number at once) that deleted it gets it. */
export async function takeChallenge(id: string): Promise<ChallengeDocument | null> {
  const found = await ChallengeModel.findById(id).lean<ChallengeDocument>().exec();
  if (!found) return null;
  return (await ChallengeModel.deleteOne({ _id: id }).exec()).deletedCount === 1 ? found : null;
}

export async function deleteExpiredChallenges(now: Date): Promise<void> {
  await ChallengeModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
}

/** Removes the account's passkeys registered at or after `since`; how many. */
export async function removeCreatedSince(userId: string, since: Date): Promise<number> {
  return (await PasskeyModel.deleteMany({ userId, createdAt: trusted({ $gte: since }) }).exec()).deletedCount;
}
