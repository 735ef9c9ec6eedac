import { createHash, randomBytes } from 'node:crypto';

/** SHA-256 in base64url: how tokens, codes and client secrets are stored (never the values themselves). */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** A random, URL-safe string with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
