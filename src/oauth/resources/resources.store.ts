// The registered resources: created with a unique identifier (a second create of the same one loses
// on any instance), listed in identifier order a page at a time, deleted by identifier. Every change
// raises a signal, so every instance's cached copy is dropped within a second.
import { trusted } from 'mongoose';
import { changeSignal } from '../../db/change-signals';
import { isDuplicateKeyError } from '../../db/duplicate-key';
import { ResourceModel, type ResourceDocument } from './resources.model';

export const resourcesChanged = changeSignal('oauth-resources');

/** Stores a new resource; false when one with its identifier exists. */
export async function insert(resource: ResourceDocument): Promise<boolean> {
  try {
    await ResourceModel.collection.insertOne(resource as never);
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
  await resourcesChanged.raise();
  return true;
}

/** A page in identifier order, after the identifier `after` when given. */
export function page(limit: number, after?: string): Promise<ResourceDocument[]> {
  const filter = after === undefined ? {} : { _id: trusted({ $gt: after }) };
  return ResourceModel.find(filter).sort({ _id: 1 }).limit(limit).lean<ResourceDocument[]>().exec();
}

export const count = (): Promise<number> => ResourceModel.countDocuments().exec();

/** Deletes it; false when there was none. */
export async function remove(id: string): Promise<boolean> {
  const { deletedCount } = await ResourceModel.deleteOne({ _id: id }).exec();
  if (deletedCount === 1) await resourcesChanged.raise();
  return deletedCount === 1;
}
