// How an in-process cache on every instance learns that what it holds changed somewhere: writers
// raise a named signal (a counter in MongoDB) after the change, and readers look at the counter at
// most once per interval. FerretDB has no change streams, so polling one small document it is.
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

  /** Call after the change is written. */
  async raise(): Promise<void> {
    this.generation++;
    const known = this.storedVersion;
    const raised = await upsertRacing(() =>
      SignalModel.findOneAndUpdate({ _id: this.name }, { $inc: { version: 1 } }, { upsert: true, returnDocument: 'after' })
        .lean()
        .exec(),
    );
    // This raise's own step is no news to the next read (its caches were emptied already); a step
    // taken elsewhere meanwhile still is.
    if (known !== undefined && raised?.version === known + 1 && this.storedVersion === known) this.storedVersion = raised.version;
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
