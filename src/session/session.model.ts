import { Schema, model } from 'mongoose';

export interface SessionDocument {
  _id: string;
  /** The session data as JSON text, exactly as express-session hands it over. */
  data: string;
  /** The signed-in user, so every session of a user can be ended at once. */
  userId?: string;
  expiresAt: Date;
  /** The last request that used the session (the account page's "last seen"). */
  lastSeenAt?: Date;
  /** The person's slot the session holds (`slot:<userId>#<n>`, session.store.ts); absent when signed out. */
  slot?: string;
}

const sessionSchema = new Schema<SessionDocument>(
  {
    _id: { type: String, required: true },
    data: { type: String, required: true },
    userId: { type: String },
    expiresAt: { type: Date, required: true },
    lastSeenAt: { type: Date },
    slot: { type: String },
  },
  { collection: 'sessions', versionKey: false },
);
// Read by _id only: a person's sessions through their slots, expired ones through the expiry journal
// (session.store.ts); an expired session is ignored when read.

export const SessionModel = model<SessionDocument>('Session', sessionSchema);
