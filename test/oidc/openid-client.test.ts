// openid-client, a certified relying party library nobody here wrote, signs in through discovery,
// the code flow with PKCE and nonce, userinfo and refresh, as confidential and public clients.
import * as oidc from 'openid-client';
import request from 'supertest';
import { sha256 } from '../../src/common/crypto';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import type { GrantType } from '../../src/oauth/protocol';
import { authorizationUrl, insecure, useLiveApp } from '../helpers/oidc';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, REDIRECT_URI, signedInAgent } from '../helpers/oauth';

useTestDatabase();

const liveApp = useLiveApp();

/** A client whose id and secret contain `-` and `_`, which openid-client form-encodes in Basic. */
async function confidentialClient(grants: GrantType[] = ['authorization_code', 'refresh_token']) {
  const clientId = `rp-${Date.now()}_a-b_c`;
  const clientSecret = 'secret-with_dash-and_underscore-0123456789';
  await ClientModel.create({
    _id: clientId,
    secretHash: sha256(clientSecret),
    name: 'Relying Party',
    website: 'https://client.example.com',
    redirectUri: REDIRECT_URI,
    grants,
    createdAt: new Date(),
  });
  return { clientId, clientSecret };
}

/** Signs a person in and approves the authorization URL openid-client built; returns the callback URL. */
async function browserApproves(url: URL, person?: { email: string; password: string }): Promise<URL> {
  const { agent } = await signedInAgent(liveApp().app, person ?? (await createUser({ firstName: 'Ada', lastName: 'Lovelace' })));
  return approve(agent, Object.fromEntries(url.searchParams));
}

describe('openid-client against this provider', () => {
  it('discovers the provider: the issuer is PUBLIC_URL and every endpoint is advertised', async () => {
    const config = await oidc.discovery(new URL(liveApp().issuer), 'any-client', undefined, oidc.None(), insecure);
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(liveApp().issuer);
    for (const endpoint of [
      'jwks_uri',
      'userinfo_endpoint',
      'registration_endpoint',
      'end_session_endpoint',
      'revocation_endpoint',
      'introspection_endpoint',
    ]) {
      expect(metadata[endpoint]).toEqual(expect.stringMatching(new RegExp(`^${liveApp().issuer}/`)));
    }
    const oauthMetadata = await request(liveApp().app).get('/.well-known/oauth-authorization-server').expect(200);
    expect(oauthMetadata.body).toEqual(
      await request(liveApp().app)
        .get('/.well-known/openid-configuration')
        .then((res) => res.body),
    );
  });

  it('signs in with the code flow, PKCE and nonce (ClientSecretBasic), reads userinfo and refreshes', async () => {
    const { clientId, clientSecret } = await confidentialClient();
    const config = await oidc.discovery(new URL(liveApp().issuer), clientId, undefined, oidc.ClientSecretBasic(clientSecret), insecure);
    const nonce = oidc.randomNonce();
    const state = oidc.randomState();
    const { url, verifier } = await authorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email offline_access',
      nonce,
      state,
    });
    const person = await createUser({ firstName: 'Ada', lastName: 'Lovelace' });
    const callback = await browserApproves(url, person);

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: state,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: liveApp().issuer,
      sub: person.id,
      aud: clientId,
      azp: clientId,
      nonce,
      acr: '1',
    });
    expect(typeof claims.auth_time).toBe('number');
    // An access token came too, so the scopes' claims are userinfo's (OIDC Core 5.4), not the ID token's.
    expect(claims.email).toBeUndefined();
    expect(claims.name).toBeUndefined();

    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toMatchObject({
      sub: person.id,
      name: 'Ada Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      email: person.email,
      email_verified: false,
    });
    expect(typeof info.updated_at).toBe('number');

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    const fresh = refreshed.claims()!;
    expect(fresh).toMatchObject({ sub: person.id, aud: clientId, auth_time: claims.auth_time });
    expect(fresh.nonce).toBeUndefined();
    expect(refreshed.id_token).not.toBe(tokens.id_token);
  });

  it('gets a client credentials token, introspects it and revokes it (ClientSecretPost)', async () => {
    const { clientId, clientSecret } = await confidentialClient(['client_credentials']);
    const config = await oidc.discovery(new URL(liveApp().issuer), clientId, undefined, oidc.ClientSecretPost(clientSecret), insecure);
    const token = await oidc.clientCredentialsGrant(config, { scope: 'read' });
    expect(token.refresh_token).toBeUndefined();
    expect(await oidc.tokenIntrospection(config, token.access_token)).toMatchObject({ active: true, client_id: clientId, scope: 'read' });
    await oidc.tokenRevocation(config, token.access_token);
    expect(await oidc.tokenIntrospection(config, token.access_token)).toEqual({ active: false });
  });

  it('signs a public client in with None() and PKCE, and refuses it a token without the verifier', async () => {
    const clientId = `public-${Date.now()}`;
    await ClientModel.create({
      _id: clientId,
      name: 'Native App',
      website: 'https://client.example.com',
      redirectUri: REDIRECT_URI,
      grants: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethod: 'none',
      createdAt: new Date(),
    });
    const config = await oidc.discovery(new URL(liveApp().issuer), clientId, undefined, oidc.None(), insecure);
    const { url, verifier } = await authorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      state: 'public-state',
    });
    const callback = await browserApproves(url);
    const code = callback.searchParams.get('code')!;
    const withoutVerifier = await request(liveApp().app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT_URI });
    expect(withoutVerifier.status).toBe(401);
    expect(withoutVerifier.body.error).toBe('invalid_client');

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: 'public-state',
      idTokenExpected: true,
    });
    expect(tokens.claims()!.aud).toBe(clientId);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeDefined();
  });
});
