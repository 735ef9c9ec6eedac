// Remembers recent successful password verifications so HTTP Basic callers pay neither argon2 nor a
// read of the stored hash on every request. A key is an HMAC (with a per-process random key) of the
// email and password: the plain password is never kept. A new password or a deleted user raises the
// credentials signal, which empties the cache here at once and on other instances within a second.
import { createHmac, randomBytes } from 'node:crypto';
import { SignalledCache, type SignalledCacheOptions } from '../common/signalled-cache';
import { changeSignal, type ChangeSignal } from '../db/change-signals';

/** Raised after a user's password changed or the user was deleted. */
export const credentialsChanged = changeSignal('credentials');

export interface CachedVerification {
  /** The user's id when these credentials were verified recently. */
  userId: string | undefined;
  /** Hand back to remember() after verifying. */
  generation: number;
}

export class VerifiedCredentialsCache {
  private readonly hmacKey = randomBytes(32);
  private readonly cache: SignalledCache<string>;

  constructor(signal: ChangeSignal = credentialsChanged, options: SignalledCacheOptions = { maxEntries: 10_000, ttlMs: 5 * 60_000 }) {
    this.cache = new SignalledCache(signal, options);
  }

  private key(email: string, password: string): string {
    // JSON keeps the two fields apart whatever characters they hold.
    return createHmac('sha256', this.hmacKey)
      .update(JSON.stringify([email, password]))
      .digest('base64url');
  }

  async lookup(email: string, password: string, now?: number): Promise<CachedVerification> {
    const { value, generation } = await this.cache.get(this.key(email, password), now);
    return { userId: value, generation };
  }

  remember(email: string, password: string, userId: string, generation: number, now?: number): void {
    this.cache.set(this.key(email, password), userId, generation, undefined, now);
  }

  get size(): number {
    return this.cache.size;
  }
}
