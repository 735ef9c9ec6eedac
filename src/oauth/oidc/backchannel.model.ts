// Which applications a person signed in to from which browser session, for back-channel logout: one
// record per OpenID session (`_id` its sid) naming its person and the clients that got a grant in it
// and registered a backchannel_logout_uri; taken when the session ends, deleted through the expiry
// journal once no session could still be open. A person's sessions with such a record are listed in `owner_lists`
// (`backchannel-sessions:<userId>`), so neither a sign-out nor a new password searches by field.
import { Schema, model } from 'mongoose';

export interface SessionClientsDocument {
  /** The session's sid (the ID token's `sid`). */
  _id: string;
  userId: string;
  /** In the order they got their first grant in the session. */
  clientIds: string[];
  createdAt: Date;
}

const sessionClientsSchema = new Schema<SessionClientsDocument>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    clientIds: { type: [String], required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'oidc_backchannel_sessions' },
);

export const SessionClientsModel = model<SessionClientsDocument>('OidcBackchannelSession', sessionClientsSchema);

/** Where the records were kept before (one per session and client, found by sid or userId): read once by the migration. */
export const PAIRS_COLLECTION = 'oidc_session_clients';
