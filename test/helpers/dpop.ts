// DPoP proofs made by hand (RFC 9449 §4.2), for requests a test sends itself with supertest.
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface DpopKey {
  pair: Awaited<ReturnType<typeof generateKeyPair>>;
  jwk: JWK;
  jkt: string;
  alg: string;
}

export async function newDpopKey(alg = 'ES256'): Promise<DpopKey> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  return { pair, jwk, jkt: await calculateJwkThumbprint(jwk), alg };
}

/** A proof for one request: its method and URL, and the access token's hash (`ath`) when one is sent. */
export function dpopProof(key: DpopKey, method: string, url: string, accessToken?: string, now = Date.now()): Promise<string> {
  const ath = accessToken === undefined ? {} : { ath: createHash('sha256').update(accessToken).digest('base64url') };
  return new SignJWT({ jti: randomUUID(), htm: method, htu: url, iat: Math.floor(now / 1000), ...ath })
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.pair.privateKey);
}
