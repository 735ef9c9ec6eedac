// Group commit for a busy insert: records that arrive while a write is under way go together in the
// next one. The first record is written at once (nothing waits for a timer); under load, one write
// carries every record that queued meanwhile, so a database that takes one writer at a time (SQLite
// under FerretDB, a journal flush on MongoDB) does one transaction for many tokens. Each caller
// learns its own outcome: a failed write fails every record it carried, and nothing else.

interface Waiting<T> {
  record: T;
  resolve(): void;
  reject(err: unknown): void;
}

/** Inserts one record through `insertMany`, in batches of at most `maxBatch`; one write under way at a time. */
export function insertBatches<T>(insertMany: (records: T[]) => Promise<unknown>, maxBatch = 100): (record: T) => Promise<void> {
  let waiting: Waiting<T>[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      try {
        await insertMany(batch.map((entry) => entry.record));
        for (const entry of batch) entry.resolve();
      } catch (err) {
        for (const entry of batch) entry.reject(err);
      }
    }
    writing = false;
  }

  return (record) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ record, resolve, reject });
      if (writing) return;
      writing = true;
      void drain();
    });
}
