// An OpenID provider on 127.0.0.1 for the upstream sign-in tests: discovery, an authorization
// endpoint that approves at once, a token endpoint (client_secret_basic, PKCE S256, one use per code)
// that signs ES256 ID tokens, a JWKS and userinfo. `tamper` makes it do what a real provider may do
// wrong. Given a saved discovery document (Google's, Microsoft's), it serves each URL in it under
// `/<host>/<path>`, reached through `routedFetch`, so the server runs on that document unchanged.
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { json, startFakeUpstream, type FakeUpstream } from './fake-upstream';

export interface FakeAccount {
  sub: string;
  email?: string;
  [claim: string]: unknown;
}

export interface Tampering {
  /** The ID token's `iss` (else the issuer). */
  issuer?: string;
  audience?: string;
  /** Signed with a key the JWKS does not hold. */
  foreignKey?: boolean;
  noNonce?: boolean;
  /** Seconds from now to `exp` (negative: already expired). */
  expiresIn?: number;
  /** The token endpoint answers this OAuth error. */
  tokenError?: string;
  /** The token endpoint never answers: it waits until the client hangs up. */
  tokenHangs?: boolean;
  /** This endpoint answers megabytes of JSON, without a Content-Length, until the client hangs up. */
  hugeAnswer?: 'discovery' | 'jwks' | 'token' | 'userinfo';
}

/** Bytes of a never-ending JSON string, sent 64 kB at a time while the client reads; at most 8 MB. */
async function hugeJson(res: import('node:http').ServerResponse): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.write('{"access_token":"');
  const chunk = 'x'.repeat(64 * 1024);
  const closed = new Promise((resolve) => res.once('close', resolve));
  for (let sent = 0; sent < 128 && !res.destroyed; sent++) {
    if (!res.write(chunk)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
  }
  if (!res.destroyed) res.end('"}');
}

export interface FakeOpenIdProvider {
  readonly issuer: string;
  readonly upstream: FakeUpstream;
  /** Who signs in at the authorization endpoint next (and what the ID token and userinfo say). */
  account: FakeAccount;
  /** Claims only userinfo gives (not put in the ID token). */
  userinfoOnly: Record<string, unknown>;
  tamper: Tampering;
  /** Follows the server's redirect to the provider: the callback URL the provider sends the browser to. */
  authorize(location: string): Promise<string>;
  /** A fetch that takes https://<host>/<path> to this server's /<host>/<path> (saved documents only). */
  routedFetch: typeof fetch;
  close(): Promise<void>;
}

interface Issued {
  nonce?: string;
  challenge: string;
  redirectUri: string;
  account: FakeAccount;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export async function startFakeOpenIdProvider(options: {
  clientId: string;
  clientSecret: string;
  /** A saved discovery document, served as it is (its issuer and endpoints are the real provider's). */
  document?: Record<string, unknown>;
  /** The path of the discovery document when a saved one is served (default: the issuer's). */
  discoveryUrl?: string;
  /** The client's public key: it authenticates with private_key_jwt (RFC 7523) instead of its secret. */
  clientKey?: JWK;
}): Promise<FakeOpenIdProvider> {
  // The first algorithm a saved document names (Google and Microsoft sign with RS256 only).
  const alg = (options.document?.id_token_signing_alg_values_supported as string[] | undefined)?.[0] ?? 'ES256';
  const keys = await generateKeyPair(alg);
  const foreign = await generateKeyPair(alg);
  const jwk: JWK = { ...(await exportJWK(keys.publicKey)), kid: 'fake-1', alg, use: 'sig' };
  const codes = new Map<string, Issued>();
  const tokens = new Map<string, FakeAccount>();
  let base = '';

  // Paths as this server sees them: its own, or /<host>/<path> for a saved document's URLs.
  const local = (url: string) => {
    const parsed = new URL(url);
    return parsed.origin === base ? parsed.pathname : `/${parsed.host}${parsed.pathname}`;
  };

  const fake: FakeOpenIdProvider = {
    issuer: '',
    upstream: undefined as unknown as FakeUpstream,
    account: { sub: 'nobody' },
    userinfoOnly: {},
    tamper: {},
    async authorize(location) {
      const res = await fetch(location.replace(/^https:\/\//, `${base}/`), { redirect: 'manual' });
      if (res.status !== 302) throw new Error(`authorize answered ${res.status}`);
      return res.headers.get('location')!;
    },
    routedFetch: (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      return fetch(url.replace(/^https:\/\//, `${base}/`), init);
    },
    close: () => fake.upstream.close(),
  };

  /** client_secret_basic (RFC 6749 §2.3.1: each part form-urlencoded, then Base64), or an assertion signed by the client's key. */
  async function clientAuthenticated(authorization: string | undefined, form: URLSearchParams): Promise<boolean> {
    if (options.clientKey) {
      const assertion = form.get('client_assertion');
      if (!assertion || form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') return false;
      try {
        const { payload } = await jwtVerify(assertion, await importJWK(options.clientKey, 'ES256'), {
          issuer: options.clientId,
          subject: options.clientId,
        });
        return [fake.issuer, `${base}/token`].some((audience) => [payload.aud].flat().includes(audience));
      } catch {
        return false;
      }
    }
    const [id, secret] = Buffer.from((authorization ?? '').replace(/^Basic /, ''), 'base64')
      .toString()
      .split(':')
      .map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
    return id === options.clientId && secret === options.clientSecret;
  }

  async function idToken(issued: Issued): Promise<string> {
    const { tamper } = fake;
    const { sub, ...claims } = issued.account;
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ ...claims, ...(issued.nonce && !tamper.noNonce ? { nonce: issued.nonce } : {}) })
      .setProtectedHeader({ alg, kid: 'fake-1' })
      .setIssuer(tamper.issuer ?? fake.issuer)
      .setAudience(tamper.audience ?? options.clientId)
      .setSubject(sub)
      .setIssuedAt(now)
      .setExpirationTime(now + (tamper.expiresIn ?? 300));
    return jwt.sign(tamper.foreignKey ? foreign.privateKey : keys.privateKey);
  }

  (fake as { upstream: FakeUpstream }).upstream = await startFakeUpstream(async (req, res): Promise<void> => {
    const doc = document();
    const path = req.url.pathname;
    const huge = fake.tamper.hugeAnswer;
    const endpoints = {
      discovery: local(options.discoveryUrl ?? `${fake.issuer}/.well-known/openid-configuration`),
      jwks: local(doc.jwks_uri as string),
      token: local(doc.token_endpoint as string),
      userinfo: doc.userinfo_endpoint ? local(doc.userinfo_endpoint as string) : '',
    };
    if (huge && path === endpoints[huge]) return hugeJson(res);
    if (path === endpoints.discovery) return json(res, 200, doc);
    if (path === endpoints.jwks) return json(res, 200, { keys: [jwk] });
    if (path === local(doc.authorization_endpoint as string)) {
      const q = req.url.searchParams;
      if (q.get('client_id') !== options.clientId || q.get('code_challenge_method') !== 'S256')
        return json(res, 400, { error: 'invalid_request' });
      const code = randomUUID();
      codes.set(code, {
        nonce: q.get('nonce') ?? undefined,
        challenge: q.get('code_challenge')!,
        redirectUri: q.get('redirect_uri')!,
        account: { ...fake.account },
      });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { Location: back.href });
      res.end();
      return;
    }
    if (path === local(doc.token_endpoint as string)) {
      if (fake.tamper.tokenHangs) {
        await req.abandoned;
        return;
      }
      const form = new URLSearchParams(req.body);
      if (!(await clientAuthenticated(req.headers.authorization, form))) return json(res, 401, { error: 'invalid_client' });
      if (fake.tamper.tokenError) return json(res, 400, { error: fake.tamper.tokenError });
      const issued = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!issued || issued.redirectUri !== form.get('redirect_uri') || s256(form.get('code_verifier') ?? '') !== issued.challenge) {
        return json(res, 400, { error: 'invalid_grant' });
      }
      const accessToken = randomUUID();
      tokens.set(accessToken, issued.account);
      return json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, id_token: await idToken(issued) });
    }
    if (doc.userinfo_endpoint && path === local(doc.userinfo_endpoint as string)) {
      const account = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      return account ? json(res, 200, { ...account, ...fake.userinfoOnly }) : json(res, 401, { error: 'invalid_token' });
    }
    json(res, 404, { error: 'not_found' });
  });
  base = fake.upstream.url;
  const document = (): Record<string, unknown> =>
    options.document ?? {
      issuer: fake.issuer,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/jwks`,
      userinfo_endpoint: `${base}/userinfo`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    };
  (fake as { issuer: string }).issuer = (options.document?.issuer as string | undefined) ?? base;
  return fake;
}
