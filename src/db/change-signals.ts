// How an in-process cache on every instance learns that what it holds changed somewhere: writers
// raise a named signal (a document in MongoDB whose value changes) after the change, and readers look
// at it at most once per interval. FerretDB has no change streams, so polling one small document it is.
import { randomInt } from 'node:crypto';
import { Schema, model } from 'mongoose';
import { upsertRacing } from './duplicate-key';

interface SignalDocument {
  _id: string;
  version: number;
}

const SignalModel = model<SignalDocument>(
  'ChangeSignal',
  new Schema<SignalDocument>(
    { _id: { type: String, required: true }, version: { type: Number, required: true } },
    { versionKey: false, collection: 'change_signals' },
  ),
);

/** Half a second between reads keeps "seen within one second" with room for a slow read. */
const READ_INTERVAL_MS = 500;

export class ChangeSignal {
  /** Moves whenever a change is seen: raised here, or a new version read from the database. */
  private generation = 0;
  private storedVersion: number | undefined;
  private readStartedAt = -Infinity;
  private reading: Promise<void> | null = null;

  constructor(
    readonly name: string,
    private readonly readIntervalMs = READ_INTERVAL_MS,
  ) {}

  /**
   * The current generation: a change raised in this process counts at once, one raised elsewhere once
   * a read that began after it has finished (a read begins at most readIntervalMs after the last).
   */
  async current(): Promise<number> {
    if (Date.now() - this.readStartedAt >= this.readIntervalMs) {
      // Concurrent callers share one read.
      this.reading ??= this.read().finally(() => (this.reading = null));
      await this.reading;
    }
    return this.generation;
  }

  /** The generation as last seen, without a read: for checking that nothing changed during a load. */
  get seen(): number {
    return this.generation;
  }

  /**
   * Call after the change is written. Raises at once in one process share writes: one is written at a
   * time, and those that come while it is under way share one more after it (that one may have begun
   * before their change), so a burst of failures costs two writes of this one document, not one each
   * (100 at once had SQLite answering "database is locked").
   */
  raise(): Promise<void> {
    this.generation++;
    if (this.queued) return this.queued;
    if (this.writing) {
      this.queued = this.writing
        .catch(() => undefined)
        .then(() => {
          this.queued = null;
          return this.write();
        });
      return this.queued;
    }
    return this.write();
  }

  private writing: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  /**
   * Stores a new value: a random one, not an increment, since FerretDB runs `$inc` as a read then a
   * write, and two raises on two instances could both store the same next number, the second unseen
   * by a reader that read the first.
   */
  private write(): Promise<void> {
    const known = this.storedVersion;
    const value = randomInt(1, 2 ** 47);
    const write = upsertRacing(() =>
      SignalModel.findOneAndUpdate({ _id: this.name }, { $set: { version: value } }, { upsert: true, returnDocument: 'after' })
        .lean()
        .exec(),
    )
      .then((raised) => {
        // This raise's own value is no news to the next read (its caches were emptied already); a
        // value stored elsewhere meanwhile still is.
        if (raised?.version === value && this.storedVersion === known) this.storedVersion = value;
      })
      .finally(() => {
        if (this.writing === write) this.writing = null;
      });
    this.writing = write;
    return write;
  }

  private async read(): Promise<void> {
    const startedAt = Date.now();
    const version = (await SignalModel.findById(this.name).lean().exec())?.version ?? 0;
    if (this.storedVersion !== undefined && version !== this.storedVersion) this.generation++;
    this.storedVersion = version;
    this.readStartedAt = startedAt;
  }
}

// eslint-disable-next-line no-restricted-syntax -- one signal per name per process, which every app's caches watch.
const signals = new Map<string, ChangeSignal>();

/** The process's one signal of this name. */
export function changeSignal(name: string): ChangeSignal {
  let signal = signals.get(name);
  if (!signal) signals.set(name, (signal = new ChangeSignal(name)));
  return signal;
}
