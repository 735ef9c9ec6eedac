// DPoP proofs (RFC 9449 §4): a JWT the client signs with the key its tokens are bound to, for one
// HTTP request. Checked here for the token, PAR and resource endpoints: `typ` dpop+jwt, an algorithm
// of DPOP_ALGORITHMS, a public key in `jwk`, the request's method and URL (without query), an `iat`
// within LIMITS.dpopProofLifetimeSeconds, the access token's hash (`ath`) where one is presented, a
// server nonce when DPOP_NONCES is on, and a `jti` used once across every instance.
import { Refusal } from '../../common/refusals';
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify } from 'jose';
import type { Clock } from '../../common/clock';
import type { Config } from '../../config';
import { DPOP_ALGORITHMS, LIMITS } from '../protocol';
import * as seenProofs from './dpop-proofs.store';

/** Why a proof was refused: `invalid_dpop_proof`, or `use_dpop_nonce` when a fresh server nonce is needed. */
export class DpopProofError extends Refusal {
  constructor(
    readonly error: 'invalid_dpop_proof' | 'use_dpop_nonce',
    description: string,
  ) {
    super('invalid', description, error);
  }
}

/** A checked proof: the thumbprint (RFC 7638) of the key that signed it, what tokens are bound to. */
export interface CheckedProof {
  jkt: string;
}

/** Members only a private key has: a proof carrying one has published its key. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

/** RFC 9449 §4.2 `ath`: the base64url SHA-256 of the access token. */
export const accessTokenHash = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** The request URL as htu compares it: scheme, host and path, no query or fragment. */
function comparable(url: string): string | null {
  const parsed = URL.parse(url);
  return parsed && `${parsed.origin}${parsed.pathname}`;
}

/** What a proof is checked against: the request's method, its path as received, and its DPoP header (an HTTP request as it is). */
export interface ProofRequest {
  method: string;
  originalUrl: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface DpopProofs {
  /**
   * The request's proof, checked for this request (its method, and its URL under PUBLIC_URL without
   * the query: `htu`, RFC 9449 §4.3), bound to `accessToken` when one is presented; null when the
   * request has none. `algorithms`: those the client may sign with (all of DPOP_ALGORITHMS unless
   * its profile narrows them). Throws DpopProofError.
   */
  check(req: ProofRequest, accessToken?: string, algorithms?: readonly string[]): Promise<CheckedProof | null>;
  /** The nonce to hand out now (the DPoP-Nonce header), when nonces are required. */
  nonce(): string | undefined;
}

export function createDpopProofs(config: Config, clock: Clock): DpopProofs {
  const nonceKey = Buffer.from(hkdfSync('sha256', config.oauth.signingKeysSecret, 'dpop-nonces', 'hmac-sha256', 32));
  const windowOf = (ms: number) => Math.floor(ms / 1000 / LIMITS.dpopNonceWindowSeconds);
  // A nonce names its window and proves it was made here, so every instance knows it without storing it.
  const nonceFor = (window: number) =>
    `${window.toString(36)}.${createHmac('sha256', nonceKey).update(String(window)).digest('base64url')}`;
  const nonceIsLive = (nonce: unknown, now: number) => {
    const current = windowOf(now);
    return typeof nonce === 'string' && (nonce === nonceFor(current) || nonce === nonceFor(current - 1));
  };

  return {
    nonce: () => (config.oauth.dpopNonces ? nonceFor(windowOf(clock.now())) : undefined),

    async check(req, accessToken, algorithms: readonly string[] = DPOP_ALGORITHMS) {
      const sent = req.headers.dpop;
      if (sent === undefined) return null;
      // The path as the client sent it (a router's mount point included), under the public URL.
      const url = `${config.publicUrl}${new URL(req.originalUrl, 'http://internal').pathname}`;
      // Several DPoP headers arrive joined by commas, which no compact JWT contains (§4.3, check 1).
      if (typeof sent !== 'string' || sent.includes(',')) throw new DpopProofError('invalid_dpop_proof', 'send exactly one DPoP header');
      let header: ReturnType<typeof decodeProtectedHeader>;
      try {
        header = decodeProtectedHeader(sent);
      } catch {
        throw new DpopProofError('invalid_dpop_proof', 'the DPoP proof is not a JWT');
      }
      if (header.typ !== 'dpop+jwt') throw new DpopProofError('invalid_dpop_proof', 'the DPoP proof must have typ dpop+jwt');
      if (!algorithms.includes(header.alg ?? ''))
        throw new DpopProofError('invalid_dpop_proof', `the DPoP proof must be signed with ${algorithms.join(', ')}`);
      const jwk = header.jwk;
      if (!jwk || typeof jwk !== 'object' || PRIVATE_MEMBERS.some((member) => member in jwk))
        throw new DpopProofError('invalid_dpop_proof', 'the DPoP proof must carry a public key in jwk');
      const now = clock.now();
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(sent, EmbeddedJWK, {
          typ: 'dpop+jwt',
          algorithms: [...algorithms],
          currentDate: new Date(now),
          clockTolerance: LIMITS.jwtClockToleranceSeconds,
        }));
      } catch {
        throw new DpopProofError('invalid_dpop_proof', 'the DPoP proof signature does not verify with its jwk');
      }
      const { jti, htm, htu, iat, ath, nonce } = payload;
      if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
        throw new DpopProofError('invalid_dpop_proof', 'the DPoP proof needs a jti');
      if (htm !== req.method) throw new DpopProofError('invalid_dpop_proof', `the DPoP proof's htm must be ${req.method}`);
      if (typeof htu !== 'string' || comparable(htu) !== comparable(url))
        throw new DpopProofError('invalid_dpop_proof', `the DPoP proof's htu must be ${url}`);
      const seconds = now / 1000;
      if (typeof iat !== 'number' || iat > seconds + LIMITS.jwtClockToleranceSeconds || iat < seconds - LIMITS.dpopProofLifetimeSeconds) {
        throw new DpopProofError('invalid_dpop_proof', `the DPoP proof's iat must be within ${LIMITS.dpopProofLifetimeSeconds} s of now`);
      }
      if (accessToken !== undefined && ath !== accessTokenHash(accessToken))
        throw new DpopProofError('invalid_dpop_proof', "the DPoP proof's ath is not the hash of the access token");
      if (config.oauth.dpopNonces && !nonceIsLive(nonce, now))
        throw new DpopProofError('use_dpop_nonce', 'use the nonce of the DPoP-Nonce header in the DPoP proof');
      const jkt = await calculateJwkThumbprint(jwk, 'sha256');
      const keepUntil = new Date((iat + LIMITS.dpopProofLifetimeSeconds + LIMITS.jwtClockToleranceSeconds) * 1000);
      if (!(await seenProofs.firstUse(jkt, jti, keepUntil, new Date(now))))
        throw new DpopProofError('invalid_dpop_proof', "the DPoP proof's jti was used already");
      return { jkt };
    },
  };
}
