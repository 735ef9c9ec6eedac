// JWTs a client used once (client assertions' jti, RFC 7523 §3): inserting the record is the use, so of
// the same assertion sent any number of times at once exactly one is accepted, on every instance.
// Kept until the JWT expires, then swept.
import { Schema, model } from 'mongoose';

export interface UsedJwtDocument {
  /** Hash of the client id and the jti. */
  _id: string;
  expiresAt: Date;
}

const usedJwtSchema = new Schema<UsedJwtDocument>(
  { _id: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { versionKey: false, collection: 'oauth_used_jwts' },
);
usedJwtSchema.index({ expiresAt: 1 });

export const UsedJwtModel = model<UsedJwtDocument>('OAuthUsedJwt', usedJwtSchema);
