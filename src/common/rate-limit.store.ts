// express-rate-limit's store in MongoDB, so every instance behind a load balancer counts together.
// Each hit is a document counted within a fixed window: an insert and a count are exact under
// concurrency on MongoDB and FerretDB alike, where an $inc through findAndModify is not guaranteed
// to be atomic on FerretDB 1.x. Old hits are swept by query (no TTL indexes there).
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import { Schema, model, trusted } from 'mongoose';
import { throttled } from '../db/sweeper';

interface HitDocument {
  key: string;
  windowStart: Date;
  expiresAt: Date;
}

const hitSchema = new Schema<HitDocument>(
  { key: { type: String, required: true }, windowStart: { type: Date, required: true }, expiresAt: { type: Date, required: true } },
  { collection: 'rate_limit_hits', versionKey: false },
);
hitSchema.index({ key: 1, windowStart: 1 });
hitSchema.index({ expiresAt: 1 });
const HitModel = model<HitDocument>('RateLimitHit', hitSchema);

const sweepExpired = throttled(60_000, async (now) => {
  await HitModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
});

export class MongoRateLimitStore implements Store {
  readonly localKeys = false;
  private windowMs = 60_000;

  constructor(readonly prefix: string) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  private windowStart(now = Date.now()): Date {
    return new Date(Math.floor(now / this.windowMs) * this.windowMs);
  }

  async get(key: string): Promise<ClientRateLimitInfo> {
    const windowStart = this.windowStart();
    const totalHits = await HitModel.countDocuments({ key: this.prefix + key, windowStart }).exec();
    return { totalHits, resetTime: new Date(windowStart.getTime() + this.windowMs) };
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const windowStart = this.windowStart();
    const resetTime = new Date(windowStart.getTime() + this.windowMs);
    await HitModel.create({ key: this.prefix + key, windowStart, expiresAt: resetTime });
    await sweepExpired();
    const totalHits = await HitModel.countDocuments({ key: this.prefix + key, windowStart }).exec();
    return { totalHits, resetTime };
  }

  async decrement(key: string): Promise<void> {
    await HitModel.findOneAndDelete({ key: this.prefix + key, windowStart: this.windowStart() }).exec();
  }

  async resetKey(key: string): Promise<void> {
    await HitModel.deleteMany({ key: this.prefix + key }).exec();
  }
}
