// ID token signing keys, shared by every instance. The private key is stored only encrypted.
import { Schema, model } from 'mongoose';
import type { SigningAlgorithm } from '../protocol';

export interface EncryptedPrivateKey {
  iv: string;
  tag: string;
  data: string;
}

export interface SigningKeyDocument {
  /** The key id (`kid`). */
  _id: string;
  alg: SigningAlgorithm;
  publicJwk: Record<string, unknown>;
  privateKey: EncryptedPrivateKey;
  createdAt: Date;
  /** Set when a newer key took over; the key then only verifies what it signed. */
  retiredAt?: Date;
  /** Retired keys stay published until what they signed has expired. */
  publishUntil?: Date;
}

const signingKeySchema = new Schema<SigningKeyDocument>(
  {
    _id: { type: String, required: true },
    alg: { type: String, required: true },
    publicJwk: { type: Schema.Types.Mixed, required: true },
    privateKey: { iv: String, tag: String, data: String },
    createdAt: { type: Date, required: true },
    retiredAt: { type: Date },
    publishUntil: { type: Date },
  },
  { collection: 'oidc_signing_keys', versionKey: false },
);
signingKeySchema.index({ createdAt: -1 });

export const SigningKeyModel = model<SigningKeyDocument>('OidcSigningKey', signingKeySchema);
