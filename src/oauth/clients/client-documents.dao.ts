// The only importer of the document clients' model; returns plain objects.
import { trusted } from 'mongoose';
import { changeSignal } from '../../db/change-signals';
import { isDuplicateKeyError } from '../../db/duplicate-key';
import {
  DocumentClientModel,
  DocumentHostModel,
  type DocumentClientDocument,
  type DocumentHostDocument,
  type HostRule,
} from './client-documents.model';

/** Raised when a host's rule changes: every instance forgets the documents it kept. */
export const documentHostsChanged = changeSignal('document-hosts');

/** Records a document client's token: created at its first, its name and last sighting updated after. */
export async function seen(clientId: string, host: string, name: string, now: Date): Promise<void> {
  try {
    await DocumentClientModel.create({ _id: clientId, host, name, firstSeen: now, lastSeen: now });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    await DocumentClientModel.updateOne({ _id: clientId }, { $set: { name, lastSeen: now } }).exec();
  }
}

/** A page of document clients in id (URL) order after `after`, those whose URL starts with `prefix` when given. */
export function pageOfClients(prefix: string | undefined, after: string | undefined, limit: number): Promise<DocumentClientDocument[]> {
  // An _id range: an index range on MongoDB.
  const range: Record<string, string> = {};
  if (prefix) Object.assign(range, { $gte: prefix, $lt: `${prefix}\uffff` });
  if (after !== undefined) range.$gt = after;
  const query = Object.keys(range).length > 0 ? { _id: trusted(range) } : {};
  return DocumentClientModel.find(query).sort({ _id: 1 }).limit(limit).lean<DocumentClientDocument[]>().exec();
}

export function findClient(clientId: string): Promise<DocumentClientDocument | null> {
  return DocumentClientModel.findById(clientId).lean<DocumentClientDocument>().exec();
}

export async function deleteClient(clientId: string): Promise<void> {
  await DocumentClientModel.deleteOne({ _id: clientId }).exec();
}

export async function ruleOf(host: string): Promise<HostRule | null> {
  return (await DocumentHostModel.findById(host).lean<DocumentHostDocument>().exec())?.rule ?? null;
}

export async function setRule(host: string, rule: HostRule, now: Date): Promise<void> {
  await DocumentHostModel.replaceOne({ _id: host }, { _id: host, rule, at: now }, { upsert: true }).exec();
  await documentHostsChanged.raise();
}

/** Whether there was a rule to delete. */
export async function deleteRule(host: string): Promise<boolean> {
  const { deletedCount } = await DocumentHostModel.deleteOne({ _id: host }).exec();
  await documentHostsChanged.raise();
  return deletedCount === 1;
}

/** A page of host rules in host order after `after`. */
export function pageOfRules(after: string | undefined, limit: number): Promise<DocumentHostDocument[]> {
  return DocumentHostModel.find(after === undefined ? {} : { _id: trusted({ $gt: after }) })
    .sort({ _id: 1 })
    .limit(limit)
    .lean<DocumentHostDocument[]>()
    .exec();
}
