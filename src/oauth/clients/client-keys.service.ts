// A client's public keys (RFC 7591 §2 `jwks` or `jwks_uri`): what its client assertions
// (private_key_jwt) and request objects are checked with. Registered keys are checked to be public
// signing keys; a jwks_uri's set comes from the app's key sets (clients.store.ts), fetched and kept.
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { GuardedFetchError } from '../../common/guarded-fetch';
import type { ClientDocument } from './clients.model';

/** The key sets clients publish at their jwks_uri, as fetched. */
export interface ClientKeySets {
  /** The client's keys, fetched again when `kid` is not among them and the copy is not brand new. */
  keysOf(client: ClientDocument, kid: string | undefined, allowPrivate: boolean): Promise<ClientJwk[]>;
  /** What is kept of a fetched set: its keys' own members (the tests look). */
  kept(uri: string): readonly ClientJwk[] | undefined;
}

/**
 * How many keys a set may hold, how large a registered one (`jwks`) and a fetched one (`jwks_uri`)
 * may be, and how long a fetched one is kept. Only each key's own members are ever kept (PUBLIC_MEMBERS).
 */
export const JWKS_LIMITS = {
  keys: 10,
  registeredBytes: 8 * 1024,
  bytes: 64 * 1024,
  fetchTimeoutMs: 3000,
  cacheMs: 5 * 60_000,
  refetchAfterMs: 10_000,
} as const;

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** What a public signing key is made of; anything else a set carries is dropped before it is kept. */
const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'] as const;

/** The keys of a set that passed jwksProblem, each with its own members only (strings). */
export function publicKeysOf(set: { keys: unknown[] }): ClientJwk[] {
  return set.keys.map(
    (key) =>
      Object.fromEntries(
        PUBLIC_MEMBERS.flatMap((member) => {
          const value = (key as Record<string, unknown>)[member];
          return typeof value === 'string' ? [[member, value]] : [];
        }),
      ) as ClientJwk,
  );
}

export interface ClientJwk extends JsonWebKey {
  kid?: string;
  alg?: string;
  use?: string;
}

/** The registered or fetched value as a key set, or why it is not one. */
export function jwksProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { keys?: unknown }).keys))
    return 'must be a JWK Set ({"keys": [...]})';
  const keys = (value as { keys: unknown[] }).keys;
  if (keys.length === 0 || keys.length > JWKS_LIMITS.keys) return `must hold 1 to ${JWKS_LIMITS.keys} keys`;
  for (const key of keys) {
    if (typeof key !== 'object' || key === null) return 'holds something that is not a key';
    const jwk = key as ClientJwk;
    if (PRIVATE_MEMBERS.some((member) => member in jwk)) return 'must hold public keys only (no private or symmetric key material)';
    if (jwk.kty !== 'RSA' && jwk.kty !== 'EC') return 'must hold RSA or EC keys';
    if (jwk.use !== undefined && jwk.use !== 'sig') return 'must hold signing keys (use sig)';
    try {
      createPublicKey({ key: jwk, format: 'jwk' });
    } catch {
      return 'holds a key that cannot be read';
    }
  }
  return null;
}

const KEY_TYPE_OF: Record<string, string> = { RS: 'RSA', PS: 'RSA', ES: 'EC' };

/**
 * The client's key that may check a JWT with this header: the one with its `kid`, or without a kid
 * the only key of the algorithm's type. null when there is none (or the keys could not be fetched).
 */
export async function verificationKey(
  client: ClientDocument,
  header: { alg?: string; kid?: string },
  keySets: ClientKeySets,
  allowPrivate: boolean,
): Promise<KeyObject | null> {
  let keys: ClientJwk[];
  try {
    keys = await keySets.keysOf(client, header.kid, allowPrivate);
  } catch (err) {
    if (err instanceof GuardedFetchError) return null;
    throw err;
  }
  const kty = KEY_TYPE_OF[header.alg?.slice(0, 2) ?? ''];
  const candidates = keys.filter(
    (key) => key.kty === kty && (header.kid === undefined || key.kid === header.kid) && (key.alg === undefined || key.alg === header.alg),
  );
  return candidates.length === 1 ? createPublicKey({ key: candidates[0], format: 'jwk' }) : null;
}
