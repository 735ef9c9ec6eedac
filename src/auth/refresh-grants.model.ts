import { Schema, model } from 'mongoose';

/** One outstanding refresh token: bound to a user and to the refreshKey claim of one access token. */
export interface RefreshGrantDocument {
  /** The refreshKey claim of the access token issued with this refresh token. */
  _id: string;
  userId: string;
  /** SHA-256 of the refresh token; the token itself is never stored. */
  tokenHash: string;
  expiresAt: Date;
}

const refreshGrantSchema = new Schema<RefreshGrantDocument>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    tokenHash: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'refresh_grants', versionKey: false },
);
// Read by _id only; expired grants go through the expiry journal (refresh-grants.dao.ts).

export const RefreshGrantModel = model<RefreshGrantDocument>('RefreshGrant', refreshGrantSchema);
