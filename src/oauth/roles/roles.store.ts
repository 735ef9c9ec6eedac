// The defined roles: a unique name (of two creates at once on any instances, one wins), listed in
// name order a page at a time.
import { trusted } from 'mongoose';
import { isDuplicateKeyError } from '../../db/duplicate-key';
import { RoleModel, type RoleDocument } from './roles.model';

/** False when a role of that name exists. */
export async function insert(role: RoleDocument): Promise<boolean> {
  try {
    await RoleModel.create(role);
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

export function page(limit: number, after?: string): Promise<RoleDocument[]> {
  return RoleModel.find(after === undefined ? {} : { _id: trusted({ $gt: after }) })
    .sort({ _id: 1 })
    .limit(limit)
    .lean<RoleDocument[]>()
    .exec();
}

export const exists = (name: string): Promise<boolean> => RoleModel.exists({ _id: name }).then((found) => found !== null);

export const count = (): Promise<number> => RoleModel.countDocuments().exec();

export async function remove(name: string): Promise<boolean> {
  return (await RoleModel.deleteOne({ _id: name }).exec()).deletedCount === 1;
}
