import { Schema, model } from 'mongoose';

/** An account at an upstream OpenID provider linked to a person here (docs/upstream.md). */
export interface UpstreamLinkDocument {
  /** `<provider id> <subject>`: one person here per provider account, however many sign in at once. */
  _id: string;
  provider: string;
  /** The provider's `sub`. */
  subject: string;
  userId: string;
  /** The address the provider gave when it was linked, shown on /account. */
  email?: string;
  linkedAt: Date;
}

const upstreamLinkSchema = new Schema<UpstreamLinkDocument>(
  {
    _id: { type: String, required: true },
    provider: { type: String, required: true },
    subject: { type: String, required: true },
    userId: { type: String, required: true },
    email: { type: String },
    linkedAt: { type: Date, required: true },
  },
  { collection: 'upstream_links', versionKey: false },
);
// One account per provider for each person: a second link to the same provider is refused.
upstreamLinkSchema.index({ userId: 1, provider: 1 }, { unique: true });

export const UpstreamLinkModel = model<UpstreamLinkDocument>('UpstreamLink', upstreamLinkSchema);
