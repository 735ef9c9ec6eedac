// One counted request of a rate-limit key, kept until one window after it was made. Its id is one of
// the key's `limit` slots (`<key>#<n>`): a slot is held by one hit at a time, so no key ever holds
// more than its limit (common/rate-limit.ts `reserve`).
import { Schema, model } from 'mongoose';

export interface HitDocument {
  _id: string;
  key: string;
  expiresAt: Date;
}

const hitSchema = new Schema<HitDocument>(
  { _id: { type: String, required: true }, key: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { collection: 'rate_limit_hits', versionKey: false },
);
hitSchema.index({ key: 1, expiresAt: 1 });
hitSchema.index({ expiresAt: 1 });
export const HitModel = model<HitDocument>('RateLimitHit', hitSchema);
