// Password hashing with argon2id (OWASP's minimum by default: 19 MiB, t=2, p=1; configurable).
// A stored hash made with other parameters still verifies, and needsRehash tells the caller to
// upgrade it after a successful login. At most (cores - 1) hashes run at once, so a burst of logins
// cannot take every core from the event loop and the database.
import { availableParallelism } from 'node:os';
import argon2 from 'argon2';

export interface PasswordHashingOptions {
  memoryKib: number;
  timeCost: number;
  parallelism: number;
}

export const OWASP_MINIMUM: PasswordHashingOptions = { memoryKib: 19_456, timeCost: 2, parallelism: 1 };
export const HASHING_CONCURRENCY = Math.max(1, availableParallelism() - 1);

let hashOptions = toArgon2(OWASP_MINIMUM);
let dummyHash: Promise<string> | undefined;

function toArgon2(options: PasswordHashingOptions) {
  return { type: argon2.argon2id, memoryCost: options.memoryKib, timeCost: options.timeCost, parallelism: options.parallelism } as const;
}

/** Sets the parameters for new hashes, process-wide (the server calls it once at start-up). */
export function configurePasswordHashing(options: PasswordHashingOptions): void {
  hashOptions = toArgon2(options);
  dummyHash = undefined;
}

let running = 0;
const waiting: (() => void)[] = [];

/** Runs argon2 work when a slot is free; callers queue in order. */
async function withHashingSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= HASHING_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

export function hashPassword(password: string): Promise<string> {
  return withHashingSlot(() => argon2.hash(password, hashOptions));
}

/**
 * Verifies a password against a stored hash. With no stored hash it verifies against a throwaway
 * one, so an unknown account costs the same time as a wrong password.
 */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword('no account has this password');
  const hash = storedHash ?? (await dummyHash);
  try {
    return (await withHashingSlot(() => argon2.verify(hash, password))) && storedHash !== undefined;
  } catch {
    // A corrupt stored hash must not become a 500 that tells accounts apart.
    return false;
  }
}

export function needsRehash(storedHash: string): boolean {
  try {
    return argon2.needsRehash(storedHash, hashOptions);
  } catch {
    return true;
  }
}
