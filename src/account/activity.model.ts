import { Schema, model } from 'mongoose';

export const ACTIVITY_KINDS = [
  'signed-up',
  'signed-in',
  'sign-in-failed',
  'password-changed',
  'password-reset-requested',
  'password-reset',
  'email-verified',
  'sessions-ended',
  'factor-added',
  'factor-removed',
  'recovery-codes-made',
  'verified-again',
  'provider-linked',
  'provider-unlinked',
  'role-given',
  'role-taken',
  'role-defined',
  'role-deleted',
  'resource-registered',
  'resource-deleted',
  'disabled',
  'enabled',
  'application-revoked',
  'deleted',
  'unlocked',
  'application-registered',
  'application-changed',
  'application-secret-rotated',
  'application-deleted',
  'keys-rotated',
  'document-host-ruled',
  'exchange-policy-set',
  'exchange-policy-deleted',
  'token-exchanged',
  'assertion-accepted',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/**
 * One security event, kept 90 days: of an account (shown on its page), or of no one person (an
 * operator registering an application or rotating the keys), with the actor saying who.
 */
export interface ActivityDocument {
  _id: string;
  /** The person it happened to; absent for an operator's change to an application or the keys. */
  userId?: string;
  kind: ActivityKind;
  at: Date;
  address: string;
  /** How (password, GitHub) or from what browser, shortened. */
  detail?: string;
  /** Who did it when not the person: `client:<id>` for the admin API's operator client. */
  actor?: string;
  /** The application it concerns, when one does (the client that acted). */
  clientId?: string;
}

const activitySchema = new Schema<ActivityDocument>(
  {
    _id: { type: String, required: true },
    userId: { type: String },
    kind: { type: String, required: true, enum: ACTIVITY_KINDS },
    at: { type: Date, required: true },
    address: { type: String, required: true },
    detail: { type: String },
    actor: { type: String },
    clientId: { type: String },
  },
  { collection: 'account_activity', versionKey: false },
);
// A person's events newest first (the account page), and everyone's by time (the console's events).
// Older than 90 days go through the expiry journal (activity.dao.ts).
activitySchema.index({ userId: 1, at: -1 });
activitySchema.index({ at: 1 });
// The console's events of one application, and of one kind.
activitySchema.index({ clientId: 1, at: -1 });
activitySchema.index({ kind: 1, at: -1 });

export const ActivityModel = model<ActivityDocument>('AccountActivity', activitySchema);
