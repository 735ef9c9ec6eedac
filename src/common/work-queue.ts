// Work done after the answer has gone (back-channel logout tokens, mail): a bounded queue with a
// bounded number of attempts, a pause between them and a bounded number under way at once. A full
// queue drops what comes next rather than holding memory; the caller reports each outcome.
//
// Fair between the groups items belong to (back-channel logout: the clients' owners): groups take
// turns for free slots, each group holds at most `perGroup.concurrent` of them and may keep at most
// `perGroup.queued` waiting, so one group's flood of slow work neither fills the slots nor the queue
// for the others. Items with the same key (one client) run one at a time. A failed attempt gives its
// slot up: the retry waits on a timer and queues again (first in its group).
export interface WorkQueueLimits {
  readonly attempts: number;
  /** The pause before each retry: before the second attempt, the third, ... */
  readonly backoffMs: readonly number[];
  /** Items worked on at once; more wait. */
  readonly concurrent: number;
  /** Items that may wait (retries pausing included); past this, add() refuses. */
  readonly queued: number;
  /** Per group, when items have groups: under way at once, and waiting. */
  readonly perGroup?: { readonly concurrent: number; readonly queued: number };
}

export interface WorkQueue<T> {
  /** Queues the item; false (nothing queued) when the queue, or its group's share of it, is full. */
  add(item: T): boolean;
  /** Items waiting, pausing before a retry, or under way. */
  readonly pending: number;
  /** Resolves when nothing is pending, or after `timeoutMs` (shutdown waits this long at most). */
  drained(timeoutMs: number): Promise<void>;
}

export interface WorkReports<T> {
  /** An attempt failed and another follows. */
  retried(item: T, attempt: number, err: unknown): void;
  /** The last attempt failed, or one whose failure is not worth retrying. */
  failed(item: T, err: unknown): void;
}

export interface WorkOptions<T> {
  /** The group an item takes turns with (one group for all when absent). */
  groupOf?(item: T): string;
  /** Items with the same key run one at a time. */
  keyOf?(item: T): string;
  /** False: the failure is final (another attempt would fail the same way). */
  retryable?(err: unknown): boolean;
}

interface Entry<T> {
  item: T;
  attempt: number;
  group: string;
  key: string | undefined;
}

export function createWorkQueue<T>(
  limits: WorkQueueLimits,
  work: (item: T, attempt: number) => Promise<void>,
  reports: WorkReports<T>,
  options: WorkOptions<T> = {},
): WorkQueue<T> {
  /** Waiting entries by group, the groups in turn order (a group goes to the back once served). */
  const waiting = new Map<string, Entry<T>[]>();
  const runningByGroup = new Map<string, number>();
  const busyKeys = new Set<string>();
  let running = 0;
  let queued = 0;
  /** Entries pausing before a retry: they hold no slot, but count as waiting and keep their key busy. */
  let pausing = 0;
  let idle: (() => void)[] = [];

  const groupCap = limits.perGroup?.concurrent ?? Infinity;
  const waitingIn = (group: string) => waiting.get(group)?.length ?? 0;

  /** The first entry that may start now: its group under its cap, its key free. Groups take turns. */
  function takeNext(): Entry<T> | undefined {
    for (const [group, entries] of waiting) {
      if ((runningByGroup.get(group) ?? 0) >= groupCap) continue;
      const at = entries.findIndex((entry) => entry.key === undefined || !busyKeys.has(entry.key));
      if (at < 0) continue;
      const [entry] = entries.splice(at, 1);
      waiting.delete(group);
      if (entries.length > 0) waiting.set(group, entries); // to the back of the round
      return entry;
    }
    return undefined;
  }

  function start(entry: Entry<T>): void {
    queued--;
    running++;
    runningByGroup.set(entry.group, (runningByGroup.get(entry.group) ?? 0) + 1);
    if (entry.key !== undefined) busyKeys.add(entry.key);
    void attempt(entry);
  }

  function finish(entry: Entry<T>, keepKey: boolean): void {
    running--;
    const left = (runningByGroup.get(entry.group) ?? 1) - 1;
    if (left > 0) runningByGroup.set(entry.group, left);
    else runningByGroup.delete(entry.group);
    if (entry.key !== undefined && !keepKey) busyKeys.delete(entry.key);
  }

  async function attempt(entry: Entry<T>): Promise<void> {
    let failure: unknown;
    try {
      await work(entry.item, entry.attempt);
      finish(entry, false);
      return pump();
    } catch (err) {
      failure = err;
    }
    const final = entry.attempt >= limits.attempts || options.retryable?.(failure) === false;
    finish(entry, !final);
    try {
      if (final) reports.failed(entry.item, failure);
      else reports.retried(entry.item, entry.attempt, failure);
    } catch {
      // A report that throws changes nothing here.
    }
    if (!final) {
      // The slot is free for others while this one waits for its retry; its key stays taken.
      pausing++;
      const pauseMs = limits.backoffMs[Math.min(entry.attempt, limits.backoffMs.length) - 1] ?? 0;
      setTimeout(() => {
        pausing--;
        if (entry.key !== undefined) busyKeys.delete(entry.key);
        const retry = { ...entry, attempt: entry.attempt + 1 };
        queued++;
        const entries = waiting.get(entry.group);
        if (entries) entries.unshift(retry);
        else waiting.set(entry.group, [retry]);
        pump();
      }, pauseMs).unref();
    }
    pump();
  }

  function pump(): void {
    while (running < limits.concurrent) {
      const next = takeNext();
      if (!next) break;
      start(next);
    }
    if (running === 0 && queued === 0 && pausing === 0) {
      const resolvers = idle;
      idle = [];
      for (const resolve of resolvers) resolve();
    }
  }

  return {
    add(item) {
      const group = options.groupOf?.(item) ?? '';
      if (queued + pausing >= limits.queued) return false;
      if (limits.perGroup && waitingIn(group) >= limits.perGroup.queued) return false;
      queued++;
      const entry = { item, attempt: 1, group, key: options.keyOf?.(item) };
      const entries = waiting.get(group);
      if (entries) entries.push(entry);
      else waiting.set(group, [entry]);
      pump();
      return true;
    },
    get pending() {
      return queued + pausing + running;
    },
    drained(timeoutMs) {
      if (running === 0 && queued === 0 && pausing === 0) return Promise.resolve();
      return new Promise((resolve) => {
        idle.push(resolve);
        setTimeout(resolve, timeoutMs).unref();
      });
    },
  };
}
