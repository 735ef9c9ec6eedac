// A bounded in-process cache whose entries all go when its change signal moves: what a change on any
// instance invalidates (a password, a revoked token) is dropped here at once when the change was made
// here, and within a second when it was made elsewhere. Entries also expire, and the least recently
// used goes first when it is full.
import type { ChangeSignal } from '../db/change-signals';
import { systemClock, type Clock } from './clock';

export interface SignalledCacheOptions {
  maxEntries: number;
  ttlMs: number;
  /** The time entries expire by (the system's unless a test moves one). */
  clock?: Clock;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class SignalledCache<V> {
  /** Map keeps insertion order, which serves as recency order. */
  private readonly entries = new Map<string, Entry<V>>();
  private generation: number | undefined;

  constructor(
    private readonly signal: ChangeSignal,
    private readonly options: SignalledCacheOptions,
  ) {}

  /**
   * The value if it is cached and no change was signalled since it was loaded. Also returns the
   * generation to hand to set() with a value loaded after this call.
   */
  async get(key: string, now = this.now()): Promise<{ value: V | undefined; generation: number }> {
    const generation = await this.signal.current();
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    }
    const entry = this.entries.get(key);
    if (!entry) return { value: undefined, generation };
    this.entries.delete(key);
    if (entry.expiresAt <= now) return { value: undefined, generation };
    this.entries.set(key, entry);
    return { value: entry.value, generation };
  }

  /**
   * Keeps a value loaded after get() returned `generation`, unless a change was signalled meanwhile
   * (the value may predate it). `ttlMs` may shorten the cache's own lifetime for this entry.
   */
  set(key: string, value: V, generation: number, ttlMs = this.options.ttlMs, now = this.now()): void {
    if (generation !== this.signal.seen || generation !== this.generation) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + Math.min(ttlMs, this.options.ttlMs) });
    if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /**
   * Read-through: the cached value, else what `load` reads, kept unless a change was signalled while
   * it loaded. null (nothing there) is not kept, so made-up keys cost a read each and no memory.
   */
  async getOrLoad(key: string, load: () => Promise<V | null>, ttlMs?: (value: V) => number): Promise<V | null> {
    const { value, generation } = await this.get(key);
    if (value !== undefined) return value;
    const loaded = await load();
    if (loaded !== null) this.set(key, loaded, generation, ttlMs?.(loaded));
    return loaded;
  }

  private now(): number {
    return (this.options.clock ?? systemClock).now();
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
