import { Schema, model } from 'mongoose';

/** A WebAuthn credential (a passkey) of an account. */
export interface PasskeyDocument {
  /** The credential id, base64url. */
  _id: string;
  userId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The authenticator's signature counter as last seen (0 for those that keep none). */
  counter: number;
  transports?: string[];
  /** Synced between devices (`multiDevice`): amr `swk`; bound to one device: `hwk`. */
  deviceType: 'singleDevice' | 'multiDevice';
  name: string;
  createdAt: Date;
  lastUsedAt?: Date;
}

const passkeySchema = new Schema<PasskeyDocument>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    publicKey: { type: String, required: true },
    counter: { type: Number, required: true },
    transports: { type: [String], default: undefined },
    deviceType: { type: String, required: true },
    name: { type: String, required: true },
    createdAt: { type: Date, required: true },
    lastUsedAt: { type: Date },
  },
  { collection: 'passkeys', versionKey: false },
);
// Read by _id only: a person's passkeys through the list of their ids (passkeys.dao.ts).

export const PasskeyModel = model<PasskeyDocument>('Passkey', passkeySchema);

/** A ceremony's challenge, used once: the person (or nobody, for a passkey sign-in) it was made for. */
export interface ChallengeDocument {
  /** The challenge, base64url. */
  _id: string;
  purpose: 'register' | 'authenticate';
  userId?: string;
  expiresAt: Date;
}

const challengeSchema = new Schema<ChallengeDocument>(
  {
    _id: { type: String, required: true },
    purpose: { type: String, required: true },
    userId: { type: String },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'webauthn_challenges', versionKey: false },
);
challengeSchema.index({ expiresAt: 1 });

export const ChallengeModel = model<ChallengeDocument>('WebAuthnChallenge', challengeSchema);
