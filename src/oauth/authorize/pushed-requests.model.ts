// Pushed authorization requests (RFC 9126): the parameters a client sent to /oauth/par, checked,
// under the hash of the request_uri handed back. Live LIMITS.pushedRequestLifetimeSeconds until the
// browser first brings it, then LIMITS.pushedRequestOpenSeconds for the person to sign in; gone
// when a code or tokens are issued from it.
import { Schema, model } from 'mongoose';
import type { OAuthParameters } from '../oauth.parameters';

export interface PushedRequestDocument {
  /** SHA-256 of the request_uri's random part. */
  _id: string;
  clientId: string;
  /** The request as reviewed (a request object's parameters applied). */
  parameters: OAuthParameters;
  /** True once a browser brought it to the authorization endpoint. */
  opened: boolean;
  expiresAt: Date;
}

const pushedRequestSchema = new Schema<PushedRequestDocument>(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    parameters: { type: Schema.Types.Mixed, required: true },
    opened: { type: Boolean, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'oauth_pushed_requests', versionKey: false },
);
pushedRequestSchema.index({ expiresAt: 1 });

export const PushedRequestModel = model<PushedRequestDocument>('OAuthPushedRequest', pushedRequestSchema);
