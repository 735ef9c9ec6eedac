// Changes to stored records that a new version needs made once per database (keys written for records
// older than them, say): each runs once, by one instance at a time, and is marked done when it has
// finished; a run cut short is run again from the start, so each must be safe to repeat.
import { Schema, model } from 'mongoose';
import { isDuplicateKeyError } from './duplicate-key';
import { withRecordLock } from './record-lock';

interface MigrationDocument {
  /** The migration's name. */
  _id: string;
  doneAt: Date;
}

const MigrationModel = model<MigrationDocument>(
  'Migration',
  new Schema<MigrationDocument>(
    { _id: { type: String, required: true }, doneAt: { type: Date, required: true } },
    { collection: 'migrations', versionKey: false },
  ),
);

const isDone = async (name: string) => (await MigrationModel.exists({ _id: name }).exec()) !== null;

/** Runs `work` unless it ran to the end on this database before; true when it ran now. */
export async function runOnce(name: string, work: () => Promise<unknown>): Promise<boolean> {
  if (await isDone(name)) return false;
  return withRecordLock(`migration:${name}`, async () => {
    if (await isDone(name)) return false;
    await work();
    try {
      await MigrationModel.create({ _id: name, doneAt: new Date() });
    } catch (err) {
      // A lease that ran out let another instance finish the same work first.
      if (!isDuplicateKeyError(err)) throw err;
    }
    return true;
  });
}
