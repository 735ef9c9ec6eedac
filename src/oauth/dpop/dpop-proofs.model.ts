// DPoP proofs seen (RFC 9449 §11.1): one record per proof's key and jti, kept as long as the proof
// could be accepted, so a proof replayed on any instance finds it.
import { Schema, model } from 'mongoose';

export interface SeenProofDocument {
  /** SHA-256 of the key's thumbprint and the proof's jti. */
  _id: string;
  expiresAt: Date;
}

const seenProofSchema = new Schema<SeenProofDocument>(
  { _id: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { collection: 'oauth_dpop_proofs', versionKey: false },
);
seenProofSchema.index({ expiresAt: 1 });

export const SeenProofModel = model<SeenProofDocument>('OAuthDpopProof', seenProofSchema);
