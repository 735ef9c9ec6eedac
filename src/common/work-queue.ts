// Work done after the answer has gone (back-channel logout tokens, mail): a bounded queue with a
// bounded number of attempts, a pause between them and a bounded number under way at once. A full
// queue drops what comes next rather than holding memory; the caller reports each outcome.
export interface WorkQueueLimits {
  readonly attempts: number;
  /** The pause before each retry: before the second attempt, the third, ... */
  readonly backoffMs: readonly number[];
  /** Items worked on at once; more wait. */
  readonly concurrent: number;
  /** Items that may wait; past this, add() refuses. */
  readonly queued: number;
}

export interface WorkQueue<T> {
  /** Queues the item; false (nothing queued) when the queue is full. */
  add(item: T): boolean;
  /** Items waiting or under way. */
  readonly pending: number;
  /** Resolves when nothing is pending, or after `timeoutMs` (shutdown waits this long at most). */
  drained(timeoutMs: number): Promise<void>;
}

export interface WorkReports<T> {
  /** An attempt failed and another follows. */
  retried(item: T, attempt: number, err: unknown): void;
  /** The last attempt failed. */
  failed(item: T, err: unknown): void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export function createWorkQueue<T>(
  limits: WorkQueueLimits,
  work: (item: T, attempt: number) => Promise<void>,
  reports: WorkReports<T>,
): WorkQueue<T> {
  const waiting: T[] = [];
  let running = 0;
  let idle: (() => void)[] = [];

  async function attemptAll(item: T): Promise<void> {
    for (let attempt = 1; attempt <= limits.attempts; attempt++) {
      try {
        await work(item, attempt);
        return;
      } catch (err) {
        if (attempt === limits.attempts) return reports.failed(item, err);
        reports.retried(item, attempt, err);
        await pause(limits.backoffMs[Math.min(attempt, limits.backoffMs.length) - 1] ?? 0);
      }
    }
  }

  function pump(): void {
    while (running < limits.concurrent && waiting.length > 0) {
      const item = waiting.shift()!;
      running++;
      void attemptAll(item)
        .catch(() => undefined)
        .finally(() => {
          running--;
          pump();
        });
    }
    if (running === 0 && waiting.length === 0) {
      const resolvers = idle;
      idle = [];
      for (const resolve of resolvers) resolve();
    }
  }

  return {
    add(item) {
      if (waiting.length >= limits.queued) return false;
      waiting.push(item);
      pump();
      return true;
    },
    get pending() {
      return waiting.length + running;
    },
    drained(timeoutMs) {
      if (running === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => {
        idle.push(resolve);
        setTimeout(resolve, timeoutMs).unref();
      });
    },
  };
}
