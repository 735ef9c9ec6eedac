// The only importer of the exchange rules' model; returns plain objects.
import { trusted } from 'mongoose';
import { isDuplicateKeyError } from '../../db/duplicate-key';
import { ExchangePolicyModel, type ExchangePolicyDocument } from './exchange-policies.model';

export const policyId = (clientId: string, audience: string): string => `${clientId} ${audience}`;

/** The rule for the pair, by `_id` (no collection read on any engine). */
export function find(clientId: string, audience: string): Promise<ExchangePolicyDocument | null> {
  return ExchangePolicyModel.findById(policyId(clientId, audience)).lean<ExchangePolicyDocument>().exec();
}

/** Writes the rule, replacing the pair's; false when it is new and the cap is reached (checked after, as the client caps are). */
export async function put(policy: ExchangePolicyDocument, cap: number): Promise<boolean> {
  const replaced = await ExchangePolicyModel.replaceOne({ _id: policy._id }, policy).exec();
  if (replaced.matchedCount === 1) return true;
  try {
    await ExchangePolicyModel.create(policy);
  } catch (err) {
    // Written by another request meanwhile: this one replaces it.
    if (!isDuplicateKeyError(err)) throw err;
    await ExchangePolicyModel.replaceOne({ _id: policy._id }, policy).exec();
    return true;
  }
  if ((await ExchangePolicyModel.estimatedDocumentCount().exec()) > cap) {
    await ExchangePolicyModel.deleteOne({ _id: policy._id }).exec();
    return false;
  }
  return true;
}

export async function remove(clientId: string, audience: string): Promise<boolean> {
  const { deletedCount } = await ExchangePolicyModel.deleteOne({ _id: policyId(clientId, audience) }).exec();
  return deletedCount === 1;
}

/** A page in `_id` order after `after`. */
export function page(after: string | undefined, limit: number): Promise<ExchangePolicyDocument[]> {
  return ExchangePolicyModel.find(after === undefined ? {} : { _id: trusted({ $gt: after }) })
    .sort({ _id: 1 })
    .limit(limit)
    .lean<ExchangePolicyDocument[]>()
    .exec();
}

/** Every rule of a client's (a client deleted takes its rules along). */
export async function removeForClient(clientId: string): Promise<void> {
  await ExchangePolicyModel.deleteMany({ clientId }).exec();
}
