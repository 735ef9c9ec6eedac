// DPoP (RFC 9449) through HTTP: openid-client's DPoP handle gets bound tokens (token_type DPoP) by
// the code, client credentials and refresh grants and uses them at userinfo and /api/user; the key is
// in introspection's cnf.jkt; a bound token sent as Bearer or with another key is refused with the
// RFC's errors and a DPoP challenge; every malformed proof is invalid_dpop_proof; a jti counts once
// across two instances; dpop_jkt (at authorize and PAR) binds the code; a public client's refresh
// token is bound to its key; server nonces (DPOP_NONCES=on) are asked for with use_dpop_nonce.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import * as oidc from 'openid-client';
import request from 'supertest';
import { testApp } from '../helpers/app';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { insecure, useLiveApp } from '../helpers/oidc';
import { approve, signedInAgent } from '../helpers/oauth';
import { accessTokenHash } from '../../src/oauth/dpop/dpop.service';

useTestDatabase();
const clock = movableClock();
const liveApp = useLiveApp({}, { clock });
const CALLBACK = 'http://127.0.0.1:8400/callback';

interface Key {
  pair: Awaited<ReturnType<typeof generateKeyPair>>;
  jwk: JWK;
  jkt: string;
}
async function newKey(alg = 'ES256'): Promise<Key> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  return { pair, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

let key: Key;
beforeAll(async () => {
  key = await newKey();
});

async function register(metadata: Record<string, unknown> = {}, clientAuth?: oidc.ClientAuth) {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  return oidc.dynamicClientRegistration(
    new URL(liveApp().issuer),
    { redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token', 'client_credentials'], ...metadata },
    clientAuth,
    { ...insecure, initialAccessToken: login.body.accessToken },
  );
}

/** A proof made by hand, for what openid-client would never send. */
async function proof(
  claims: { htm?: string; htu?: string; iat?: number; jti?: string; ath?: string; nonce?: string },
  options: { signer?: Key; header?: Record<string, unknown> } = {},
): Promise<string> {
  const signer = options.signer ?? key;
  const now = Math.floor(clock.now() / 1000);
  return new SignJWT({ jti: crypto.randomUUID(), htm: 'POST', htu: `${liveApp().issuer}/oauth/token`, iat: now, ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: signer.jwk, ...options.header })
    .sign(signer.pair.privateKey);
}

/** A client_credentials request with this DPoP header (or headers). */
function tokenRequest(app: Parameters<typeof request>[0], client: { id: string; secret: string }, dpop: string | string[]) {
  return (
    request(app)
      .post('/oauth/token')
      .auth(client.id, client.secret)
      // supertest sends an array as that many headers.
      .set('DPoP', dpop as string)
      .type('form')
      .send({ grant_type: 'client_credentials' })
  );
}

const credentialsOf = (config: oidc.Configuration) => ({
  id: config.clientMetadata().client_id,
  secret: config.clientMetadata().client_secret as string,
});

it('lists its DPoP algorithms in discovery', async () => {
  const { body } = await request(liveApp().app).get('/.well-known/openid-configuration').expect(200);
  expect(body.dpop_signing_alg_values_supported).toEqual(['ES256', 'PS256', 'RS256', 'EdDSA']);
});

describe('with openid-client', () => {
  it('binds the code flow tokens to the key, and userinfo and /api/user take them with proofs', async () => {
    const config = await register();
    const DPoP = oidc.getDPoPHandle(config, key.pair);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid read',
      state: 's',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const person = await createUser();
    const { agent } = await signedInAgent(liveApp().app, person);
    const callback = await approve(agent, Object.fromEntries(url.searchParams));
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: 's' }, undefined, {
      DPoP,
    });
    expect(tokens.token_type).toBe('dpop');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub, { DPoP });
    expect(info.sub).toBe(tokens.claims()!.sub);
    const api = await oidc.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL(`${liveApp().issuer}/api/user`),
      'GET',
      null,
      undefined,
      { DPoP },
    );
    expect(api.status).toBe(200);
    expect(((await api.json()) as { email: string }).email).toBe(person.email);

    const introspected = await oidc.tokenIntrospection(config, tokens.access_token);
    expect(introspected).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });

    // The same token as a bearer token, or with another key's proof: refused, with DPoP's challenge.
    const asBearer = await request(liveApp().app).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`).expect(401);
    expect(asBearer.headers['www-authenticate']).toMatch(/^DPoP error="invalid_token"/);
    const other = await newKey();
    const stolen = await request(liveApp().app)
      .get('/api/user')
      .set('Authorization', `DPoP ${tokens.access_token}`)
      .set(
        'DPoP',
        await proof({ htm: 'GET', htu: `${liveApp().issuer}/api/user`, ath: accessTokenHash(tokens.access_token) }, { signer: other }),
      )
      .expect(401);
    expect(stolen.body).toEqual({ error: 'invalid_token', error_description: 'The access token is bound to another DPoP key' });
    expect(stolen.headers['www-authenticate']).toContain('algs="ES256 PS256 RS256 EdDSA"');

    // A confidential client's refresh is not bound; the new access token is bound to the refresh's proof.
    const renewed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, {
      DPoP: oidc.getDPoPHandle(config, other.pair),
    });
    expect(await oidc.tokenIntrospection(config, renewed.access_token)).toMatchObject({ cnf: { jkt: other.jkt } });
  });

  it('gives bearer tokens as before when no proof comes', async () => {
    const config = await register();
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'read' });
    expect(tokens.token_type).toBe('bearer');
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).not.toHaveProperty('cnf');
  });
});

describe('proofs refused at the token endpoint with invalid_dpop_proof', () => {
  let client: { id: string; secret: string };
  beforeAll(async () => {
    client = credentialsOf(await register());
  });
  const now = () => Math.floor(clock.now() / 1000);

  it.each([
    [
      'with a private key in jwk',
      async () => proof({}, { header: { jwk: await exportJWK(key.pair.privateKey) } }),
      'the DPoP proof must carry a public key in jwk',
    ],
    [
      'unsigned (alg none)',
      async () => {
        const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
        const claims = { jti: 'x', htm: 'POST', htu: `${liveApp().issuer}/oauth/token`, iat: now() };
        return `${encode({ alg: 'none', typ: 'dpop+jwt', jwk: key.jwk })}.${encode(claims)}.`;
      },
      'the DPoP proof must be signed with ES256, PS256, RS256, EdDSA',
    ],
    [
      'signed HS256',
      async () =>
        new SignJWT({ jti: 'h', htm: 'POST', htu: `${liveApp().issuer}/oauth/token`, iat: now() })
          .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: 'c2VjcmV0' } as never })
          .sign(new TextEncoder().encode('s'.repeat(32))),
      'the DPoP proof must be signed with ES256, PS256, RS256, EdDSA',
    ],
    ['of another type', async () => proof({}, { header: { typ: 'JWT' } }), 'the DPoP proof must have typ dpop+jwt'],
    [
      'for another URL',
      async () => proof({ htu: `${liveApp().issuer}/oauth/userinfo` }),
      `the DPoP proof's htu must be ${'ISSUER'}/oauth/token`,
    ],
    ['for another method', async () => proof({ htm: 'GET' }), "the DPoP proof's htm must be POST"],
    ['made ten minutes ago', async () => proof({ iat: now() - 600 }), "the DPoP proof's iat must be within 300 s of now"],
    ['made in the future', async () => proof({ iat: now() + 600 }), "the DPoP proof's iat must be within 300 s of now"],
    [
      'signed by another key than its jwk',
      async () => proof({}, { header: { jwk: (await newKey()).jwk } }),
      'the DPoP proof signature does not verify with its jwk',
    ],
    ['that is no JWT', async () => 'not-a-jwt', 'the DPoP proof is not a JWT'],
  ])('refuses a proof %s', async (_case, build, description) => {
    const res = await tokenRequest(liveApp().app, client, await build()).expect(400);
    expect(res.body).toEqual({ error: 'invalid_dpop_proof', error_description: description.replace('ISSUER', liveApp().issuer) });
  });

  it('refuses two DPoP headers', async () => {
    const res = await tokenRequest(liveApp().app, client, [await proof({}), await proof({})]).expect(400);
    expect(res.body.error).toBe('invalid_dpop_proof');
  });

  it('takes a jti once: 50 requests with one proof at two instances give one token', async () => {
    const second = testApp({ PUBLIC_URL: liveApp().issuer });
    const shared = await proof({});
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => tokenRequest(i % 2 ? second : liveApp().app, client, shared)));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    const refused = answers.filter((res) => res.status === 400);
    expect(refused).toHaveLength(49);
    expect(refused[0].body).toEqual({ error: 'invalid_dpop_proof', error_description: "the DPoP proof's jti was used already" });
  });

  it("refuses at a resource a proof whose ath is not the token's hash", async () => {
    const issued = await tokenRequest(liveApp().app, client, await proof({})).expect(200);
    expect(issued.body.token_type).toBe('DPoP');
    const res = await request(liveApp().app)
      .get('/oauth/userinfo')
      .set('Authorization', `DPoP ${issued.body.access_token}`)
      .set('DPoP', await proof({ htm: 'GET', htu: `${liveApp().issuer}/oauth/userinfo`, ath: accessTokenHash('another token') }))
      .expect(401);
    expect(res.body).toEqual({
      error: 'invalid_dpop_proof',
      error_description: "the DPoP proof's ath is not the hash of the access token",
    });
    expect(res.headers['www-authenticate']).toMatch(/^DPoP error="invalid_dpop_proof"/);
  });

  it('refuses the DPoP scheme with a token that is not bound', async () => {
    const issued = await request(liveApp().app)
      .post('/oauth/token')
      .auth(client.id, client.secret)
      .type('form')
      .send({ grant_type: 'client_credentials' });
    const res = await request(liveApp().app)
      .get('/api/user')
      .set('Authorization', `DPoP ${issued.body.access_token}`)
      .set('DPoP', await proof({ htm: 'GET', htu: `${liveApp().issuer}/api/user`, ath: accessTokenHash(issued.body.access_token) }))
      .expect(401);
    expect(res.body.error).toBe('invalid_token');
  });
});

describe('keys a grant is bound to', () => {
  it('binds the code to dpop_jkt: no proof, or another key, cannot exchange it', async () => {
    const config = await register();
    const { agent } = await signedInAgent(liveApp().app);
    const verifier = oidc.randomPKCECodeVerifier();
    const query = {
      client_id: config.clientMetadata().client_id,
      response_type: 'code',
      redirect_uri: CALLBACK,
      scope: 'read',
      dpop_jkt: key.jkt,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    };
    // The first code needs consent; the next come at once (consent remembered).
    const codeUrl = async () => {
      const answer = await agent.get('/oauth/authorize').query(query);
      return answer.status === 302 ? new URL(answer.headers.location) : approve(agent, query);
    };
    const exchange = async (dpop?: oidc.DPoPHandle) =>
      oidc.authorizationCodeGrant(config, await codeUrl(), { pkceCodeVerifier: verifier }, undefined, dpop ? { DPoP: dpop } : {});
    await expect(exchange()).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    await expect(exchange(oidc.getDPoPHandle(config, (await newKey()).pair))).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    expect((await exchange(oidc.getDPoPHandle(config, key.pair))).token_type).toBe('dpop');

    const bad = await agent
      .get('/oauth/authorize')
      .query({ ...query, dpop_jkt: 'short' })
      .expect(302);
    expect(new URL(bad.headers.location).searchParams.get('error')).toBe('invalid_request');
  });

  it('binds the code to the key of a proof sent with a PAR push', async () => {
    const config = await register();
    const verifier = oidc.randomPKCECodeVerifier();
    const url = await oidc.buildAuthorizationUrlWithPAR(
      config,
      {
        redirect_uri: CALLBACK,
        scope: 'read',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      },
      { DPoP: oidc.getDPoPHandle(config, key.pair) },
    );
    const { agent } = await signedInAgent(liveApp().app);
    const callback = await approve(agent, Object.fromEntries(url.searchParams));
    await expect(
      oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, undefined, {
        DPoP: oidc.getDPoPHandle(config, (await newKey()).pair),
      }),
    ).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
  });

  it("binds a public client's refresh token to its key", async () => {
    const config = await register(
      { token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] },
      oidc.None(),
    );
    const DPoP = oidc.getDPoPHandle(config, key.pair);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const { agent } = await signedInAgent(liveApp().app);
    const tokens = await oidc.authorizationCodeGrant(
      config,
      await approve(agent, Object.fromEntries(url.searchParams)),
      { pkceCodeVerifier: verifier },
      undefined,
      { DPoP },
    );
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    await expect(
      oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: oidc.getDPoPHandle(config, (await newKey()).pair) }),
    ).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    // Refused without spending it: the right key still renews.
    expect((await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP })).token_type).toBe('dpop');
  });
});

describe('server nonces (DPOP_NONCES=on)', () => {
  const nonceApp = useLiveApp({ DPOP_NONCES: 'on' }, { clock });

  it('asks for a nonce with use_dpop_nonce, which openid-client answers by itself', async () => {
    const person = await createUser();
    const login = await request(nonceApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
    const config = await oidc.dynamicClientRegistration(
      new URL(nonceApp().issuer),
      { redirect_uris: [CALLBACK], grant_types: ['client_credentials'] },
      undefined,
      { ...insecure, initialAccessToken: login.body.accessToken },
    );
    const client = credentialsOf(config);
    const send = async (nonce?: string) =>
      tokenRequest(nonceApp().app, client, await proof({ htu: `${nonceApp().issuer}/oauth/token`, nonce }));
    const refused = await send();
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('use_dpop_nonce');
    const nonce = refused.headers['dpop-nonce'];
    expect(nonce).toEqual(expect.any(String));
    const withNonce = await send(nonce);
    expect(withNonce.status).toBe(200);
    expect(withNonce.body.token_type).toBe('DPoP');
    expect(withNonce.headers['dpop-nonce']).toBe(nonce);

    // openid-client retries with the nonce it is given (its proofs carry real time: before the clock moves).
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'read' }, { DPoP: oidc.getDPoPHandle(config, key.pair) });
    expect(tokens.token_type).toBe('dpop');

    // A nonce lasts one window and the next, then it is asked for again.
    clock.move(11 * 60_000);
    const stale = await send(nonce);
    expect(stale.status).toBe(400);
    expect(stale.body.error).toBe('use_dpop_nonce');
    expect(stale.headers['dpop-nonce']).not.toBe(nonce);
  });
});
