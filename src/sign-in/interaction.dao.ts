// The only importer of the interaction model; sign-in/interaction.ts its only user. Every lookup is by
// `_id`, and records are never updated (a new stage is a new record).
import { trusted } from 'mongoose';
import { InteractionModel, type InteractionDocument } from './interaction.model';

export type InteractionContent = Omit<InteractionDocument, '_id' | 'expiresAt'>;

export function find(id: string): Promise<InteractionDocument | null> {
  return InteractionModel.findById(id).lean<InteractionDocument>().exec();
}

export async function insert(id: string, content: InteractionContent, expiresAt: Date): Promise<void> {
  await InteractionModel.create({ _id: id, ...content, expiresAt });
}

/** True for the one caller that removed it: an interaction is used once. */
export async function remove(id: string): Promise<boolean> {
  const { deletedCount } = await InteractionModel.deleteOne({ _id: id }).exec();
  return deletedCount === 1;
}

/** Interactions past their expiry (safe on FerretDB: an id is never reused, a record never extended). */
export async function removeExpired(now: Date): Promise<void> {
  await InteractionModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
}
