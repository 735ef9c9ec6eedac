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
}

const sessionSchema = new Schema<SessionDocument>(
  {
    _id: { type: String, required: true },
    data: { type: String, required: true },
    userId: { type: String },
    expiresAt: { type: Date, required: true },
    lastSeenAt: { type: Date },
  },
  { collection: 'sessions', versionKey: false },
);
// Expired sessions are swept by query (FerretDB 1.x has no TTL indexes) and ignored when read.
sessionSchema.index({ expiresAt: 1 });
sessionSchema.index({ userId: 1 });

export const SessionModel = model<SessionDocument>('Session', sessionSchema);
