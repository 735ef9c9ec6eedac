import { VerifiedCredentialsCache } from '../../src/sign-in/verified-credentials.cache';
import { ChangeSignal } from '../../src/db/change-signals';
import { useTestDatabase } from '../helpers/db';

useTestDatabase();

const options = { maxEntries: 10, ttlMs: 60_000 };

async function remembered(cache: VerifiedCredentialsCache, email: string, password: string, userId: string, now?: number) {
  const { generation } = await cache.lookup(email, password, now);
  cache.remember(email, password, userId, generation, now);
}

describe('VerifiedCredentialsCache', () => {
  it('hits only for the same email and password', async () => {
    const cache = new VerifiedCredentialsCache(new ChangeSignal('test-credentials-1'), options);
    await remembered(cache, 'a@example.com', 'pw-1', 'user-a');
    expect((await cache.lookup('a@example.com', 'pw-1')).userId).toBe('user-a');
    expect((await cache.lookup('a@example.com', 'pw-2')).userId).toBeUndefined();
    expect((await cache.lookup('b@example.com', 'pw-1')).userId).toBeUndefined();
  });

  it('keeps field boundaries: moving characters from the password to the email misses', async () => {
    const cache = new VerifiedCredentialsCache(new ChangeSignal('test-credentials-2'), options);
    await remembered(cache, 'a', 'b\0c', 'user');
    expect((await cache.lookup('a\0b', 'c')).userId).toBeUndefined();
  });

  it('forgets everything when its signal is raised, and never holds the plain password', async () => {
    const signal = new ChangeSignal('test-credentials-3');
    const cache = new VerifiedCredentialsCache(signal, options);
    await remembered(cache, 'a@example.com', 'plain-password-value', 'user-a');
    const inner = (cache as unknown as { cache: { entries: Map<string, unknown> } }).cache.entries;
    expect([...inner.keys()].join()).not.toContain('plain-password-value');
    expect(JSON.stringify([...inner.values()])).not.toContain('plain-password-value');
    await signal.raise();
    expect((await cache.lookup('a@example.com', 'plain-password-value')).userId).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
