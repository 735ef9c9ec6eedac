// The only importer of the client model; returns plain objects.
import { trusted } from 'mongoose';
import { changeSignal } from '../../db/change-signals';
import { withRecordLock } from '../../db/record-lock';
import { startsWith } from '../../db/starts-with';
import { ClientModel, type ClientDocument } from './clients.model';

/** Raised after a client is replaced, changed or deleted, for the caches of client reads on every instance. */
export const clientsChanged = changeSignal('oauth-clients');

/** The name as the console searches it: lower case, stored beside it (an index range on MongoDB). */
const nameKeyOf = (name: string) => name.toLowerCase();
const withNameKey = <T extends Partial<ClientDocument>>(client: T): T =>
  client.name === undefined ? client : { ...client, nameKey: nameKeyOf(client.name) };

export async function insertClient(client: ClientDocument): Promise<void> {
  await ClientModel.create(withNameKey(client));
}

/** Creates the client, or replaces the one with its id. */
export async function putClient(client: ClientDocument): Promise<void> {
  await ClientModel.replaceOne({ _id: client._id }, withNameKey(client), { upsert: true }).exec();
  await clientsChanged.raise();
}

/** Every web origin of the public clients (the CORS policy keeps them as one set). */
export async function publicClientOrigins(): Promise<string[]> {
  const clients = await ClientModel.find({ tokenEndpointAuthMethod: 'none', webOrigins: trusted({ $exists: true }) }, { webOrigins: 1 })
    .lean<{ webOrigins?: string[] }[]>()
    .exec();
  return clients.flatMap((client) => client.webOrigins ?? []);
}

export function findClient(clientId: string): Promise<ClientDocument | null> {
  return ClientModel.findById(clientId).lean<ClientDocument>().exec();
}

export function listClientsOf(ownerId: string): Promise<ClientDocument[]> {
  return ClientModel.find({ ownerId }).sort({ createdAt: 1 }).lean<ClientDocument[]>().exec();
}

/** One page of an owner's clients, oldest first, with only the fields a listing shows. */
export function pageOfClientsOf(ownerId: string, page: number, limit: number): Promise<ClientDocument[]> {
  return ClientModel.find({ ownerId }, { _id: 1, name: 1, website: 1, redirectUri: 1, grants: 1 })
    .sort({ createdAt: 1, _id: 1 })
    .skip(page * limit)
    .limit(limit)
    .lean<ClientDocument[]>()
    .exec();
}

export function countClientsOf(ownerId: string): Promise<number> {
  return ClientModel.countDocuments({ ownerId }).exec();
}

export function listAllClients(): Promise<ClientDocument[]> {
  return ClientModel.find().sort({ createdAt: 1 }).lean<ClientDocument[]>().exec();
}

/**
 * Clients whose name (any case) or id starts with `prefix`, in id order after `after` (the console's
 * search); every client without a prefix.
 */
export function searchClients(prefix: string | undefined, after: string | undefined, limit: number): Promise<ClientDocument[]> {
  const query: Record<string, unknown> = {};
  if (prefix) {
    // Ids as written; names by their stored lower-case key: both anchored, so both are index ranges.
    query.$or = [{ _id: startsWith(prefix) }, { nameKey: startsWith(prefix.toLowerCase()) }];
  }
  if (after !== undefined) query._id = trusted({ $gt: after });
  return ClientModel.find(query).sort({ _id: 1 }).limit(limit).lean<ClientDocument[]>().exec();
}

/** false when there is no such client (or, given an owner, when it is not theirs). */
export async function deleteClient(clientId: string, ownerId?: string): Promise<boolean> {
  // Read by _id and checked here, then deleted by _id alone: the owner of a client never changes.
  if (ownerId !== undefined && (await findClient(clientId))?.ownerId !== ownerId) return false;
  const { deletedCount } = await ClientModel.deleteOne({ _id: clientId }).exec();
  if (deletedCount === 1) await clientsChanged.raise();
  return deletedCount === 1;
}

/** Sets the given fields; the updated client, or null when there is none. */
export async function updateClient(clientId: string, fields: Partial<Omit<ClientDocument, '_id'>>): Promise<ClientDocument | null> {
  const updated = await ClientModel.findOneAndUpdate({ _id: clientId }, { $set: withNameKey(fields) }, { returnDocument: 'after' })
    .lean<ClientDocument>()
    .exec();
  if (updated) await clientsChanged.raise();
  return updated;
}

/** The ids of clients registered without a token whose time to be used has passed. */
export async function unusedPast(now: Date, limit: number): Promise<string[]> {
  const clients = await ClientModel.find({ unusedUntil: trusted({ $lte: now }) }, { _id: 1 })
    .limit(limit)
    .lean<{ _id: string }[]>()
    .exec();
  return clients.map((client) => client._id);
}

// Using a client registered without a token and deleting it as unused are decided on the record read
// by _id, under the client's lock: FerretDB runs a filter by more than _id as a read of every client.
const unusedLock = <T>(clientId: string, work: () => Promise<T>) => withRecordLock(`unused-client:${clientId}`, work);

/** The client got its first token: it is kept from now on. */
export async function markUsed(clientId: string): Promise<void> {
  await unusedLock(clientId, async () => {
    if ((await findClient(clientId))?.unusedUntil === undefined) return;
    await ClientModel.updateOne({ _id: clientId }, { $unset: { unusedUntil: 1, unusedSlot: 1 } }).exec();
  });
  await clientsChanged.raise();
}

/** Deletes the client only while it is still unused and past its time; whether it went. */
export async function deleteUnused(clientId: string, now: Date): Promise<boolean> {
  const deleted = await unusedLock(clientId, async () => {
    const client = await findClient(clientId);
    if (!client?.unusedUntil || client.unusedUntil > now) return false;
    return (await ClientModel.deleteOne({ _id: clientId }).exec()).deletedCount === 1;
  });
  if (deleted) await clientsChanged.raise();
  return deleted;
}

/** Stores the search key of clients written before it (a migration, src/migrations.ts). */
export async function writeMissingNameKeys(): Promise<number> {
  let written = 0;
  for await (const client of ClientModel.find({}, { name: 1, nameKey: 1 })
    .lean<Pick<ClientDocument, '_id' | 'name' | 'nameKey'>>()
    .cursor()) {
    if (client.nameKey === nameKeyOf(client.name)) continue;
    await ClientModel.updateOne({ _id: client._id }, { $set: { nameKey: nameKeyOf(client.name) } }).exec();
    written += 1;
  }
  return written;
}
