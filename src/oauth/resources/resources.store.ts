// The registered resources: created with a unique identifier (a second create of the same one loses
// on any instance), listed in identifier order a page at a time, deleted by identifier. Every change
// raises a signal, so every instance's cached copy is dropped within a second.
import { trusted } from 'mongoose';
import type { Clock } from '../../common/clock';
import { SignalledCache } from '../../common/signalled-cache';
import { changeSignal } from '../../db/change-signals';
import { LIMITS } from '../protocol';
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

/** Every registered resource by identifier (they are few: LIMITS.resources). */
export interface ResourceStore {
  all(): Promise<ReadonlyMap<string, ResourceDocument>>;
}

export const databaseResources: ResourceStore = {
  all: async () => new Map((await page(LIMITS.resources)).map((doc) => [doc._id, doc])),
};

/**
 * Kept whole per app and read again only when a change was signalled (or after a minute): a made-up
 * `resource` value costs no database read.
 */
export function cachedResources(store: ResourceStore, clock: Clock): ResourceStore {
  const registered = new SignalledCache<ReadonlyMap<string, ResourceDocument>>(resourcesChanged, { maxEntries: 1, ttlMs: 60_000, clock });
  return { all: async () => (await registered.getOrLoad('all', () => store.all())) ?? new Map() };
}
