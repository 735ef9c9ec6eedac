// Remembers recent successful password verifications so HTTP Basic callers do not pay for argon2 on
// every request. An entry's key is an HMAC (with a per-process random key) of the email, the password
// and the stored hash: the plain password is never kept, and a changed password (new hash) or a
// deleted user (no hash) misses at once. Bounded by count (least recently used goes first) and age.
import { createHmac, randomBytes } from 'node:crypto';

export interface VerifiedCredentialsCacheOptions {
  maxEntries: number;
  ttlMs: number;
}

export class VerifiedCredentialsCache {
  private readonly hmacKey = randomBytes(32);
  /** key -> expiry time; Map keeps insertion order, which serves as recency order. */
  private readonly entries = new Map<string, number>();

  constructor(private readonly options: VerifiedCredentialsCacheOptions = { maxEntries: 10_000, ttlMs: 5 * 60_000 }) {}

  private key(email: string, password: string, storedHash: string): string {
    // JSON keeps the three fields apart whatever characters they hold.
    return createHmac('sha256', this.hmacKey)
      .update(JSON.stringify([email, password, storedHash]))
      .digest('base64url');
  }

  has(email: string, password: string, storedHash: string, now = Date.now()): boolean {
    const key = this.key(email, password, storedHash);
    const expiresAt = this.entries.get(key);
    if (expiresAt === undefined) return false;
    this.entries.delete(key);
    if (expiresAt <= now) return false;
    this.entries.set(key, expiresAt);
    return true;
  }

  add(email: string, password: string, storedHash: string, now = Date.now()): void {
    const key = this.key(email, password, storedHash);
    this.entries.delete(key);
    this.entries.set(key, now + this.options.ttlMs);
    if (this.entries.size > this.options.maxEntries) {
      this.entries.delete(this.entries.keys().next().value!);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
