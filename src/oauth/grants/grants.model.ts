// What a person approved for a client: the consent that lets a later authorization skip the page.
import { Schema, model } from 'mongoose';

export interface GrantDocument {
  /** `<userId>:<clientId>`: one grant per person and client. */
  _id: string;
  userId: string;
  clientId: string;
  /** Every scope the person approved for the client. */
  scope: string[];
  firstGrantedAt: Date;
  lastUsedAt: Date;
}

const grantSchema = new Schema<GrantDocument>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    clientId: { type: String, required: true },
    scope: { type: [String], required: true },
    firstGrantedAt: { type: Date, required: true },
    lastUsedAt: { type: Date, required: true },
  },
  { collection: 'oauth_grants', versionKey: false },
);
grantSchema.index({ userId: 1, firstGrantedAt: 1 });
// The console's page of a client's grants: by client, in id order after a cursor.
grantSchema.index({ clientId: 1, _id: 1 });

export const GrantModel = model<GrantDocument>('OAuthGrant', grantSchema);
