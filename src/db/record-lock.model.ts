// A record lock: held by one holder (its id) at a time per record (its name, unique); db/record-lock.ts.
import { Schema, model } from 'mongoose';

interface LockDocument {
  /** The holder. */
  _id: string;
  /** The record locked: one holder at a time. */
  name: string;
  expiresAt: Date;
}

const lockSchema = new Schema<LockDocument>(
  { _id: { type: String, required: true }, name: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { collection: 'record_locks', versionKey: false },
);
// Sparse: a lock of the earlier shape (its name in its id) names none; it lapses within a lease.
lockSchema.index({ name: 1 }, { unique: true, sparse: true });
export const LockModel = model<LockDocument>('RecordLock', lockSchema);
