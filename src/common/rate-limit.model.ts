// One counted request of a rate-limit key, kept until one window after it was made.
import { Schema, model } from 'mongoose';

export interface HitDocument {
  key: string;
  expiresAt: Date;
}

const hitSchema = new Schema<HitDocument>(
  { key: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { collection: 'rate_limit_hits', versionKey: false },
);
hitSchema.index({ key: 1, expiresAt: 1 });
hitSchema.index({ expiresAt: 1 });
export const HitModel = model<HitDocument>('RateLimitHit', hitSchema);
