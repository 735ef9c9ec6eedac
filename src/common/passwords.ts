// Password hashing with argon2id. A stored hash made with other parameters still verifies, and
// needsRehash tells the caller to upgrade it after a successful login.
import argon2 from 'argon2';

// OWASP's minimum for argon2id: 19 MiB, two passes, one lane.
const HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

let dummyHash: Promise<string> | undefined;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, HASH_OPTIONS);
}

/**
 * Verifies a password against a stored hash. With no stored hash it verifies against a throwaway
 * one, so an unknown account costs the same time as a wrong password.
 */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword('no account has this password');
  const hash = storedHash ?? (await dummyHash);
  try {
    return (await argon2.verify(hash, password)) && storedHash !== undefined;
  } catch {
    // A corrupt stored hash must not become a 500 that tells accounts apart.
    return false;
  }
}

export function needsRehash(storedHash: string): boolean {
  try {
    return argon2.needsRehash(storedHash, HASH_OPTIONS);
  } catch {
    return true;
  }
}
