// express-rate-limit's store in MongoDB, so every instance behind a load balancer counts together.
// A sliding window: each hit is a document that expires one window after it was made, and a client's
// count is its unexpired hits. An insert and a count are exact under concurrency on MongoDB and
// FerretDB alike (an $inc through findAndModify is not guaranteed atomic on FerretDB 1.x), and a
// sliding window has no boundary at which a client could double its rate. Expired hits are swept by
// query (no TTL indexes there).
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import { Schema, model, trusted } from 'mongoose';
import { throttled } from '../db/sweeper';

interface HitDocument {
  key: string;
  expiresAt: Date;
}

const hitSchema = new Schema<HitDocument>(
  { key: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { collection: 'rate_limit_hits', versionKey: false },
);
hitSchema.index({ key: 1, expiresAt: 1 });
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

  private live(key: string, now: Date) {
    return { key: this.prefix + key, expiresAt: trusted({ $gt: now }) };
  }

  async get(key: string): Promise<ClientRateLimitInfo> {
    const now = new Date();
    const [totalHits, oldest] = await Promise.all([
      HitModel.countDocuments(this.live(key, now)).exec(),
      HitModel.findOne(this.live(key, now), { expiresAt: 1 }).sort({ expiresAt: 1 }).lean().exec(),
    ]);
    // The count goes down when the oldest hit expires.
    return { totalHits, resetTime: oldest?.expiresAt ?? new Date(now.getTime() + this.windowMs) };
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const now = new Date();
    await HitModel.create({ key: this.prefix + key, expiresAt: new Date(now.getTime() + this.windowMs) });
    await sweepExpired(now);
    return this.get(key);
  }

  async decrement(key: string): Promise<void> {
    await HitModel.findOneAndDelete(this.live(key, new Date()), { sort: { expiresAt: -1 } }).exec();
  }

  async resetKey(key: string): Promise<void> {
    await HitModel.deleteMany({ key: this.prefix + key }).exec();
  }
}
