import { Schema, model } from 'mongoose';
import type { LinkPurpose } from './account.rules';

/** A link the server mailed (verification, password reset): only its token's hash is kept. */
export interface AccountLinkDocument {
  /** SHA-256 of the token in the link. */
  _id: string;
  purpose: LinkPurpose;
  userId: string;
  /** The address the link was sent to: verification proves this one. */
  email: string;
  /** The user's credentials stamp when it was sent: a reset link dies when the password changes. */
  credentialsStamp: number;
  createdAt: Date;
  expiresAt: Date;
}

const accountLinkSchema = new Schema<AccountLinkDocument>(
  {
    _id: { type: String, required: true },
    purpose: { type: String, required: true },
    userId: { type: String, required: true },
    email: { type: String, required: true },
    credentialsStamp: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'account_links', versionKey: false },
);
accountLinkSchema.index({ userId: 1, purpose: 1 });
// Expired links are swept by query (FerretDB 1.x has no TTL indexes) and refused when read.
accountLinkSchema.index({ expiresAt: 1 });

export const AccountLinkModel = model<AccountLinkDocument>('AccountLink', accountLinkSchema);
