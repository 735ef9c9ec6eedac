import { Schema, model } from 'mongoose';
import type { Sealed } from '../common/crypto';

/** An account's authenticator-app secret, sealed (AES-256-GCM) like the signing keys. */
export interface TotpDocument {
  /** The user's id: one secret per account. */
  _id: string;
  secret: Sealed;
  /** Absent while enrolment waits for its first code. */
  confirmedAt?: Date;
  createdAt: Date;
}

const totpSchema = new Schema<TotpDocument>(
  {
    _id: { type: String, required: true },
    secret: { type: Schema.Types.Mixed, required: true },
    confirmedAt: { type: Date },
    createdAt: { type: Date, required: true },
  },
  { collection: 'totp_secrets', versionKey: false },
);
export const TotpModel = model<TotpDocument>('TotpSecret', totpSchema);
