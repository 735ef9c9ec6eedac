// Which applications a person signed in to from which browser session, for back-channel logout: kept
// only for clients that registered a backchannel_logout_uri, taken when the session ends, swept once
// no session could still be open.
import { Schema, model } from 'mongoose';

export interface SessionClientDocument {
  /** Hash of the sid and the client id: one record per pair, however often the client signs in. */
  _id: string;
  sid: string;
  userId: string;
  clientId: string;
  createdAt: Date;
}

const sessionClientSchema = new Schema<SessionClientDocument>(
  {
    _id: { type: String, required: true },
    sid: { type: String, required: true },
    userId: { type: String, required: true },
    clientId: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'oidc_session_clients' },
);
sessionClientSchema.index({ sid: 1 });
sessionClientSchema.index({ userId: 1 });
sessionClientSchema.index({ createdAt: 1 });

export const SessionClientModel = model<SessionClientDocument>('OidcSessionClient', sessionClientSchema);
