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

/** A one-time code used: `<userId>:<time step>`, inserted once (a second insert is a replay). */
export interface CodeUseDocument {
  _id: string;
  expiresAt: Date;
}

const codeUseSchema = new Schema<CodeUseDocument>(
  { _id: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { collection: 'totp_code_uses', versionKey: false },
);
// Swept by query (FerretDB 1.x has no TTL indexes).
codeUseSchema.index({ expiresAt: 1 });
export const CodeUseModel = model<CodeUseDocument>('TotpCodeUse', codeUseSchema);
