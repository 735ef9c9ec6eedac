import { Schema, model } from 'mongoose';

/** One recovery code, stored as a hash; used by deleting it. */
export interface RecoveryCodeDocument {
  /** SHA-256 of `<userId>:<code>`. */
  _id: string;
  userId: string;
  createdAt: Date;
}

const recoveryCodeSchema = new Schema<RecoveryCodeDocument>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'recovery_codes', versionKey: false },
);
// Read by _id only: a person's codes through the list of their ids (recovery-codes.dao.ts).

export const RecoveryCodeModel = model<RecoveryCodeDocument>('RecoveryCode', recoveryCodeSchema);
