// The cache and signal that let each instance keep recent lookups: entries expire, the least recently
// used goes first, and a change raised here empties it at once, one raised on another instance (a
// second signal of the same name stands for it) within a second.
import { SignalledCache } from '../../src/common/signalled-cache';
import { ChangeSignal } from '../../src/db/change-signals';
import { useTestDatabase } from '../helpers/db';
import { msUntilFalse } from '../helpers/polling';

useTestDatabase();

async function put(cache: SignalledCache<string>, key: string, value: string, now?: number) {
  const { generation } = await cache.get(key, now);
  cache.set(key, value, generation, undefined, now);
}

describe('SignalledCache', () => {
  it('forgets an entry after its time to live, or the shorter one given with it', async () => {
    const cache = new SignalledCache<string>(new ChangeSignal('ttl'), { maxEntries: 10, ttlMs: 1000 });
    await put(cache, 'a', 'A', 0);
    expect((await cache.get('a', 999)).value).toBe('A');
    expect((await cache.get('a', 1000)).value).toBeUndefined();
    const { generation } = await cache.get('b', 0);
    cache.set('b', 'B', generation, 100, 0);
    expect((await cache.get('b', 99)).value).toBe('B');
    expect((await cache.get('b', 100)).value).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const cache = new SignalledCache<string>(new ChangeSignal('lru'), { maxEntries: 2, ttlMs: 60_000 });
    await put(cache, 'one', '1');
    await put(cache, 'two', '2');
    expect((await cache.get('one')).value).toBe('1');
    await put(cache, 'three', '3');
    expect(cache.size).toBe(2);
    expect((await cache.get('two')).value).toBeUndefined();
    expect((await cache.get('one')).value).toBe('1');
    expect((await cache.get('three')).value).toBe('3');
  });

  it('empties at once when this process raises its signal, and never keeps a value loaded across the change', async () => {
    const signal = new ChangeSignal('local');
    const cache = new SignalledCache<string>(signal, { maxEntries: 10, ttlMs: 60_000 });
    await put(cache, 'a', 'old');
    const { generation } = await cache.get('b');
    // A change lands while the value for 'b' is being loaded: the value may predate it.
    await signal.raise();
    cache.set('b', 'loaded before the change', generation);
    expect((await cache.get('a')).value).toBeUndefined();
    expect((await cache.get('b')).value).toBeUndefined();
  });

  it('sees a change raised on another instance within a second', async () => {
    const here = new ChangeSignal('shared');
    const elsewhere = new ChangeSignal('shared');
    const cache = new SignalledCache<string>(here, { maxEntries: 10, ttlMs: 60_000 });
    await put(cache, 'a', 'A');
    await elsewhere.raise();
    expect(await msUntilFalse(async () => (await cache.get('a')).value !== undefined)).toBeLessThanOrEqual(1000);
  });
});
