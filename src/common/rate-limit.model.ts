// One counted request of a rate-limit key, kept until one window after it was made. It holds one of
// the key's `limit` slots (`<key>#<n>`, unique): a slot is held by one hit at a time, so no key ever
// holds more than its limit (common/rate-limit.ts `reserve`). Its id is the slot and a random tail, its
// own: FerretDB deletes by filter as a read and then a delete by id, so an expired hit cleared by id
// can never take with it the next hit to hold its slot.
import { Schema, model } from 'mongoose';

export interface HitDocument {
  _id: string;
  slot: string;
  key: string;
  expiresAt: Date;
}

const hitSchema = new Schema<HitDocument>(
  {
    _id: { type: String, required: true },
    slot: { type: String, required: true },
    key: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'rate_limit_hits', versionKey: false },
);
// Sparse: hits written before slots had a field of their own (they expire within a window) name none.
hitSchema.index({ slot: 1 }, { unique: true, sparse: true });
hitSchema.index({ key: 1, expiresAt: 1 });
hitSchema.index({ expiresAt: 1 });
export const HitModel = model<HitDocument>('RateLimitHit', hitSchema);
