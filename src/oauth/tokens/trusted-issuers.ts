// The identity providers whose Identity Assertion JWT Authorization Grants (ID-JAG) this server takes
// at the JWT bearer grant (RFC 7523): the UPSTREAM_PROVIDERS entries with `trust_id_jag` (docs/oauth.md,
// "Enterprise-managed authorization"). Each provider's keys are found by its discovery document and
// fetched with jose (kept, fetched again for an unknown key id), each answer bounded in size and time.
import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import { limitedFetch } from '../../common/limited-fetch';
import type { Config } from '../../config';
import { ID_JAG_TYPE, LIMITS, SIGNING_ALGORITHMS } from '../protocol';

type Provider = Config['upstream']['providers'][number];

/** The largest discovery document or key set read from a provider. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** Why an assertion was not taken (the grant's invalid_grant says it). */
export class AssertionRefused extends Error {}

export interface VerifiedAssertion {
  provider: Provider;
  payload: JWTPayload & { sub: string; jti: string; exp: number; client_id: string };
}

export interface TrustedIssuers {
  /** An ID-JAG for this server from a trusted provider, checked but not yet used; AssertionRefused otherwise. */
  verify(assertion: string, now: Date): Promise<VerifiedAssertion>;
}

export function createTrustedIssuers(config: Pick<Config, 'upstream' | 'publicUrl'>, fetchImpl: typeof fetch = fetch): TrustedIssuers {
  const trusted = config.upstream.providers.filter((provider) => provider.trustIdJag);
  const transport = limitedFetch(fetchImpl, MAX_ANSWER_BYTES);
  const keySets = new Map<string, Promise<ReturnType<typeof createRemoteJWKSet>>>();

  async function discover(provider: Provider) {
    const answer = await transport(`${provider.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(config.upstream.timeoutMs),
      headers: { Accept: 'application/json' },
    });
    if (answer.status !== 200) throw new AssertionRefused(`${provider.name}'s discovery answered ${answer.status}`);
    const metadata = (await answer.json()) as { issuer?: unknown; jwks_uri?: unknown };
    if (metadata.issuer !== provider.issuer || typeof metadata.jwks_uri !== 'string')
      throw new AssertionRefused(`${provider.name}'s discovery names another issuer or no jwks_uri`);
    return createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: config.upstream.timeoutMs, [customFetch]: transport });
  }

  /** One discovery at a time per provider, kept while it works; a failed one is tried again next time. */
  function keysOf(provider: Provider) {
    let found = keySets.get(provider.id);
    if (!found) {
      found = discover(provider);
      keySets.set(provider.id, found);
      found.catch(() => keySets.delete(provider.id));
    }
    return found;
  }

  return {
    async verify(assertion, now) {
      let issuer: unknown;
      try {
        issuer = decodeJwt(assertion).iss;
      } catch {
        throw new AssertionRefused('the assertion is not a JWT');
      }
      const provider = trusted.find((candidate) => candidate.issuer === issuer);
      if (!provider) throw new AssertionRefused('the assertion is not from an identity provider this server trusts for ID-JAGs');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(assertion, await keysOf(provider), {
          issuer: provider.issuer,
          audience: config.publicUrl,
          typ: ID_JAG_TYPE,
          algorithms: [...SIGNING_ALGORITHMS],
          requiredClaims: ['sub', 'jti', 'exp', 'iat', 'client_id'],
          currentDate: now,
          clockTolerance: LIMITS.jwtClockToleranceSeconds,
          maxTokenAge: LIMITS.idJagLifetimeSeconds + LIMITS.jwtClockToleranceSeconds,
        }));
      } catch (err) {
        if (err instanceof AssertionRefused) throw err;
        throw new AssertionRefused(`the assertion does not verify (${(err as { code?: string }).code ?? 'unreadable'})`);
      }
      if (typeof payload.client_id !== 'string' || typeof payload.jti !== 'string' || payload.jti.length > 256)
        throw new AssertionRefused('the assertion has no client_id or jti');
      return { provider, payload: payload as VerifiedAssertion['payload'] };
    },
  };
}
