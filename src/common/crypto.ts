import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** SHA-256 in base64url: how tokens, codes and client secrets are stored (never the values themselves). */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** A random, URL-safe string with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A value kept encrypted at rest (AES-256-GCM), as stored. */
export interface Sealed {
  iv: string;
  tag: string;
  data: string;
}

/** The AES key for one purpose, derived (HKDF-SHA256) from a configured secret. */
function sealingKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, purpose, 'aes-256-gcm', 32));
}

/** Encrypts a value under a key derived from `secret` for `purpose` (each purpose its own key). */
export function seal(plaintext: string, secret: string, purpose: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret, purpose), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** The sealed value, or null when it was sealed under another secret or purpose, or altered. */
export function unseal(sealed: Sealed, secret: string, purpose: string): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret, purpose), Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
