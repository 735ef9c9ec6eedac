import { VerifiedCredentialsCache } from '../../src/auth/verified-credentials.cache';

describe('VerifiedCredentialsCache', () => {
  it('hits only for the same email, password and stored hash', () => {
    const cache = new VerifiedCredentialsCache();
    cache.add('a@example.com', 'pw-1', 'hash-1');
    expect(cache.has('a@example.com', 'pw-1', 'hash-1')).toBe(true);
    expect(cache.has('a@example.com', 'pw-2', 'hash-1')).toBe(false);
    expect(cache.has('a@example.com', 'pw-1', 'hash-2')).toBe(false);
    expect(cache.has('b@example.com', 'pw-1', 'hash-1')).toBe(false);
  });

  it('keeps field boundaries: moving characters from the password to the email misses', () => {
    const cache = new VerifiedCredentialsCache();
    cache.add('a', 'b\0c', 'h');
    expect(cache.has('a\0b', 'c', 'h')).toBe(false);
  });

  it('forgets an entry after its time to live', () => {
    const cache = new VerifiedCredentialsCache({ maxEntries: 10, ttlMs: 1000 });
    cache.add('a@example.com', 'pw', 'h', 0);
    expect(cache.has('a@example.com', 'pw', 'h', 999)).toBe(true);
    expect(cache.has('a@example.com', 'pw', 'h', 2000)).toBe(false);
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the least recently used', () => {
    const cache = new VerifiedCredentialsCache({ maxEntries: 2, ttlMs: 60_000 });
    cache.add('one', 'pw', 'h');
    cache.add('two', 'pw', 'h');
    expect(cache.has('one', 'pw', 'h')).toBe(true);
    cache.add('three', 'pw', 'h');
    expect(cache.size).toBe(2);
    expect(cache.has('two', 'pw', 'h')).toBe(false);
    expect(cache.has('one', 'pw', 'h')).toBe(true);
    expect(cache.has('three', 'pw', 'h')).toBe(true);
  });

  it('never holds the plain password', () => {
    const cache = new VerifiedCredentialsCache();
    cache.add('a@example.com', 'plain-password-value', 'h');
    const entries = (cache as unknown as { entries: Map<string, number> }).entries;
    expect([...entries.keys()].join()).not.toContain('plain-password-value');
  });
});
