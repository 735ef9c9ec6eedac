// Resources (APIs, RFC 8707) an operator registered: an identifier clients name in `resource`, the
// scopes the API accepts, and the form of the access tokens it gets (RFC 9068 JWT or opaque).
import { Schema, model } from 'mongoose';
import type { ResourceFormat, SigningAlgorithm } from '../protocol';

export interface ResourceDocument {
  /** The resource indicator: an absolute URI without fragment or query (RFC 8707 §2). */
  _id: string;
  scopes: string[];
  format: ResourceFormat;
  /** Seconds an access token for it lives. */
  accessTokenLifetime: number;
  /** What its JWT access tokens are signed with (the key ring has one current key per algorithm). */
  signingAlg: SigningAlgorithm;
  createdAt: Date;
}

const resourceSchema = new Schema<ResourceDocument>(
  {
    _id: { type: String, required: true },
    scopes: { type: [String], required: true },
    format: { type: String, required: true },
    accessTokenLifetime: { type: Number, required: true },
    signingAlg: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'oauth_resources', versionKey: false },
);

export const ResourceModel = model<ResourceDocument>('OAuthResource', resourceSchema);
