// A person's few records of one kind (their passkeys, their recovery codes) found without a filter by
// person, which FerretDB 1.x answers by reading the whole collection: their ids are listed in a record
// of their own, `<kind>:<owner>`, read by `_id` and changed only under the owner's lock for that kind
// (FerretDB writes an update back as the document it read, so two changes at once could lose one).
import mongoose, { Schema, model } from 'mongoose';
import { withRecordLock } from './record-lock';

interface OwnerListDocument {
  /** `<kind>:<owner>`. */
  _id: string;
  ids: string[];
}

const OwnerListModel = model<OwnerListDocument>(
  'OwnerList',
  new Schema<OwnerListDocument>(
    { _id: { type: String, required: true }, ids: { type: [String], required: true } },
    { collection: 'owner_lists', versionKey: false },
  ),
);

export interface OwnerLists {
  /** The ids listed for the owner, in the order they were added. */
  of(owner: string): Promise<string[]>;
  /** Changes the owner's records and their list together, under the owner's lock: `work` gets the ids and says what they are now. */
  change<T>(owner: string, work: (ids: string[]) => Promise<{ ids: string[]; result: T }>): Promise<T>;
  /** Sets an owner's list from records written before lists existed (a migration); an existing one is kept. */
  seed(owner: string, ids: string[]): Promise<void>;
}

export function ownerLists(kind: string): OwnerLists {
  const listId = (owner: string) => `${kind}:${owner}`;
  const of = async (owner: string) => (await OwnerListModel.findById(listId(owner)).lean<OwnerListDocument>().exec())?.ids ?? [];
  return {
    of,
    change: (owner, work) =>
      withRecordLock(`owner-list:${listId(owner)}`, async () => {
        const { ids, result } = await work(await of(owner));
        if (ids.length === 0) await OwnerListModel.deleteOne({ _id: listId(owner) }).exec();
        else await OwnerListModel.updateOne({ _id: listId(owner) }, { $set: { ids } }, { upsert: true }).exec();
        return result;
      }),
    async seed(owner, ids) {
      await mongoose.connection
        .collection<OwnerListDocument>(OwnerListModel.collection.collectionName)
        .updateOne({ _id: listId(owner) }, { $setOnInsert: { ids } }, { upsert: true });
    },
  };
}
