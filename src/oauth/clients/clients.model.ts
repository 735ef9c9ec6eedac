// Registered client applications. The secret is kept only as a SHA-256 hash.
import { Schema, model } from 'mongoose';

export const GRANT_TYPES = ['authorization_code', 'implicit', 'refresh_token', 'password', 'client_credentials'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

export interface ClientDocument {
  /** client_id, public. */
  _id: string;
  secretHash: string;
  name: string;
  website: string;
  redirectUri: string;
  grants: GrantType[];
  /** The user who registered the client; absent for clients registered from the command line. */
  ownerId?: string;
  createdAt: Date;
}

const clientSchema = new Schema<ClientDocument>(
  {
    _id: { type: String, required: true },
    secretHash: { type: String, required: true },
    name: { type: String, required: true },
    website: { type: String, required: true },
    redirectUri: { type: String, required: true },
    grants: { type: [String], required: true },
    ownerId: { type: String },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'oauth_clients' },
);
clientSchema.index({ ownerId: 1, createdAt: 1 });

export const ClientModel = model<ClientDocument>('OAuthClient', clientSchema);
