// Talking to the upstream providers, through openid-client (docs/upstream.md): discovery on first use
// (kept a day, retried after a failure), then authorization code with PKCE (S256), state and nonce,
// the ID token checked by openid-client (issuer, Microsoft's `{tenantid}` issuer rule, audience,
// signature from the provider's JWKS, nonce, exp and iat), and userinfo when the ID token lacks the
// email. Every request gives up after UPSTREAM_TIMEOUT_MS, and every answer past
// MAX_ANSWER_BYTES (issue 48, finding 11: a 300 MB token answer ran the heap out in JSON.parse).
// Failures come back as an UpstreamFailure naming what went wrong and the provider's error code,
// never its tokens.
import * as oidc from 'openid-client';
import { importJWK } from 'jose';
import { AnswerTooLargeError, limitedFetch } from '../common/limited-fetch';
import type { UpstreamProvider } from './upstream.settings';

const DISCOVERY_LIFETIME_MS = 24 * 3600_000;
/** OpenID Connect Core §2: a `sub` is at most 255 ASCII characters. */
const MAX_SUBJECT_LENGTH = 255;
/** The most of any one answer (discovery, JWKS, token, userinfo): the largest real ones are a few kB. */
export const MAX_ANSWER_BYTES = 256 * 1024;

/** Why a sign-in through a provider failed: each has its page (upstream.controller.ts). */
export type FailureKind = 'denied' | 'refused' | 'unverifiable' | 'unreachable';

export class UpstreamFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    /** The provider's OAuth error code, or the check that failed (for the log and the page). */
    readonly code: string,
  ) {
    super(`${kind}: ${code}`);
  }
}

/** What the callback needs back from the start: kept in the signed state cookie. */
export interface AuthorizationChecks {
  state: string;
  nonce: string;
  verifier: string;
}

export interface UpstreamClientOptions {
  timeoutMs: number;
  /** The transport (tests route a provider's real host names to loopback); fetch by default. */
  fetch?: typeof fetch;
}

/** Maps what openid-client throws to the provider's failure: never its response body or tokens. */
export function failureOf(err: unknown): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  if (err instanceof oidc.AuthorizationResponseError) {
    return new UpstreamFailure(err.error === 'access_denied' ? 'denied' : 'refused', err.error);
  }
  if (err instanceof oidc.ResponseBodyError) return new UpstreamFailure('refused', err.error);
  // fetch fails with a TypeError when nothing answers (refused, reset, unknown host), which
  // openid-client may wrap; compared by name, as it may come from another realm's fetch.
  const causes: unknown[] = [];
  for (let cause: unknown = err; typeof cause === 'object' && cause !== null && causes.length < 4; cause = (cause as Error).cause) {
    causes.push(cause);
  }
  if (causes.some((cause) => cause instanceof AnswerTooLargeError)) return new UpstreamFailure('unverifiable', 'answer too large');
  if (causes.some((cause) => (cause as Error).name === 'TypeError')) return new UpstreamFailure('unreachable', 'connection failed');
  if (err instanceof oidc.ClientError) {
    const code = err.code ?? 'check failed';
    if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT') return new UpstreamFailure('unreachable', 'timeout');
    // A provider that answers unreadably (discovery, the token endpoint) is as good as down; a token
    // that fails a check is not trusted.
    const unreadable = code === 'OAUTH_RESPONSE_IS_NOT_JSON' || code === 'OAUTH_RESPONSE_IS_NOT_CONFORM';
    return new UpstreamFailure(unreadable ? 'unreachable' : 'unverifiable', code);
  }
  return new UpstreamFailure('unverifiable', err instanceof Error ? err.name : 'unknown error');
}

async function clientAuth(provider: UpstreamProvider): Promise<oidc.ClientAuth> {
  switch (provider.authMethod) {
    case 'private_key_jwt': {
      const jwk = provider.privateKey!;
      const key = await importJWK(jwk, jwk.alg as string);
      return oidc.PrivateKeyJwt({ key: key as oidc.CryptoKey, kid: typeof jwk.kid === 'string' ? jwk.kid : undefined });
    }
    case 'client_secret_post':
      return oidc.ClientSecretPost(provider.clientSecret!);
    case 'none':
      return oidc.None();
    default:
      return oidc.ClientSecretBasic(provider.clientSecret!);
  }
}

export function createUpstreamClient(options: UpstreamClientOptions) {
  const discovered = new Map<string, { at: number; configuration: Promise<oidc.Configuration> }>();
  const seconds = options.timeoutMs / 1000;
  const transport = limitedFetch(options.fetch ?? fetch, MAX_ANSWER_BYTES);

  async function discover(provider: UpstreamProvider): Promise<oidc.Configuration> {
    const issuer = new URL(provider.issuer);
    // Plain http is accepted for loopback issuers only (upstream.settings.ts).
    const execute = issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
    const configuration = await oidc.discovery(issuer, provider.clientId, undefined, await clientAuth(provider), {
      execute,
      timeout: seconds,
      [oidc.customFetch]: transport,
    });
    configuration.timeout = seconds;
    configuration[oidc.customFetch] = transport;
    // The ID token's signature is checked against the provider's JWKS too, not only TLS (OpenID
    // Connect Core §3.1.3.7 lets a client skip it; docs/upstream.md says why this server does not).
    oidc.enableNonRepudiationChecks(configuration);
    return configuration;
  }

  /** The provider's configuration: one discovery at a time per provider, kept a day, forgotten on failure. */
  function configurationOf(provider: UpstreamProvider): Promise<oidc.Configuration> {
    const now = Date.now();
    const known = discovered.get(provider.id);
    if (known && now - known.at < DISCOVERY_LIFETIME_MS) return known.configuration;
    const configuration = discover(provider);
    discovered.set(provider.id, { at: now, configuration });
    configuration.catch(() => {
      if (discovered.get(provider.id)?.configuration === configuration) discovered.delete(provider.id);
    });
    return configuration;
  }

  return {
    /** Where to send the browser, and the checks to keep for the callback. */
    async start(provider: UpstreamProvider, redirectUri: string): Promise<{ url: string; checks: AuthorizationChecks }> {
      try {
        const configuration = await configurationOf(provider);
        const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
        const url = oidc.buildAuthorizationUrl(configuration, {
          redirect_uri: redirectUri,
          scope: provider.scopes.join(' '),
          state: checks.state,
          nonce: checks.nonce,
          code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
          code_challenge_method: 'S256',
        });
        return { url: url.href, checks };
      } catch (err) {
        throw failureOf(err);
      }
    },

    /**
     * The callback: the code exchanged, the ID token checked, and the claims (the ID token's, with
     * userinfo's added when it lacks the email). Throws an UpstreamFailure.
     */
    async finish(
      provider: UpstreamProvider,
      callbackUrl: URL,
      redirectUri: string,
      checks: AuthorizationChecks,
    ): Promise<Record<string, unknown> & { sub: string }> {
      try {
        const configuration = await configurationOf(provider);
        const tokens = await oidc.authorizationCodeGrant(
          configuration,
          callbackUrl,
          { pkceCodeVerifier: checks.verifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true },
          { redirect_uri: redirectUri },
        );
        const claims = tokens.claims();
        if (!claims) throw new UpstreamFailure('unverifiable', 'no ID token');
        // OpenID Connect Core §2: `sub` is at most 255 ASCII characters (a 64 kB one would be a link key).
        if (claims.sub.length > MAX_SUBJECT_LENGTH || !/^[\x21-\x7e]+$/.test(claims.sub))
          throw new UpstreamFailure('unverifiable', 'sub is not 1 to 255 ASCII characters');
        const emailClaim = provider.claims.email;
        if (claims[emailClaim] === undefined && configuration.serverMetadata().userinfo_endpoint) {
          const info = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
          return { ...info, ...claims };
        }
        return { ...claims };
      } catch (err) {
        throw failureOf(err);
      }
    },
  };
}

export type UpstreamClient = ReturnType<typeof createUpstreamClient>;
