// Dynamic registration (RFC 7591/7592) and RP-initiated logout, driven by openid-client where it has
// the function, and by plain HTTP for the refusals.
import * as oidc from 'openid-client';
import request from 'supertest';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import { TokenModel } from '../../src/oauth/tokens/tokens.model';
import { authorizationUrl, insecure, useLiveApp } from '../helpers/oidc';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, signedInAgent } from '../helpers/oauth';

useTestDatabase();

const liveApp = useLiveApp();

const CALLBACK = 'http://127.0.0.1:8400/callback';
const AFTER_LOGOUT = 'https://rp.example.com/signed-out';

async function accessTokenOf(person: { email: string; password: string }): Promise<string> {
  const res = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  return res.body.accessToken as string;
}

async function registerWithOpenidClient(metadata: Partial<oidc.ClientMetadata>, person = createUser()) {
  const initialAccessToken = await accessTokenOf(await person);
  return oidc.dynamicClientRegistration(new URL(liveApp().issuer), { redirect_uris: [CALLBACK], ...metadata }, undefined, {
    ...insecure,
    initialAccessToken,
  });
}

describe('RFC 7591 registration', () => {
  it('registers a confidential client that then signs a person in', async () => {
    const config = await registerWithOpenidClient({ client_name: 'Registered RP', post_logout_redirect_uris: [AFTER_LOGOUT] });
    const metadata = config.clientMetadata();
    expect(metadata).toMatchObject({
      client_name: 'Registered RP',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      client_secret_expires_at: 0,
    });
    expect(metadata.client_secret).toEqual(expect.any(String));
    expect(metadata.registration_access_token).toEqual(expect.any(String));

    const nonce = oidc.randomNonce();
    const { url, verifier } = await authorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid email',
      nonce,
    });
    const { agent } = await signedInAgent(liveApp().app);
    const callback = await approve(agent, Object.fromEntries(url.searchParams));
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()!.aud).toBe(metadata.client_id);
  });

  it('registers a public native client (none, custom scheme), which has no secret', async () => {
    const config = await registerWithOpenidClient({
      redirect_uris: ['com.example.app:/oauth/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const metadata = config.clientMetadata();
    expect(metadata.client_secret).toBeUndefined();
    expect(metadata.token_endpoint_auth_method).toBe('none');
    const stored = await ClientModel.findById(metadata.client_id).lean();
    expect(stored?.secretHash).toBeUndefined();
  });

  it('reads and deletes a registration with its registration access token, and only with it (RFC 7592)', async () => {
    const person = await createUser();
    const registered = await request(liveApp().app)
      .post('/oauth/register')
      .set('Authorization', `Bearer ${await accessTokenOf(person)}`)
      .send({ redirect_uris: [CALLBACK] })
      .expect(201);
    const { client_id: clientId, registration_access_token: registrationToken, registration_client_uri: uri } = registered.body;
    expect(uri).toBe(`${liveApp().issuer}/oauth/register/${clientId}`);
    const path = new URL(uri as string).pathname;
    await request(liveApp().app).get(path).set('Authorization', 'Bearer wrong').expect(401);
    const read = await request(liveApp().app).get(path).set('Authorization', `Bearer ${registrationToken}`).expect(200);
    expect(read.body).toMatchObject({ client_id: clientId, redirect_uris: [CALLBACK] });
    expect(read.body.client_secret).toBeUndefined();
    await request(liveApp().app).delete(path).set('Authorization', 'Bearer wrong').expect(401);
    expect(await ClientModel.countDocuments({ _id: clientId })).toBe(1);
    await request(liveApp().app).delete(path).set('Authorization', `Bearer ${registrationToken}`).expect(204);
    expect(await ClientModel.countDocuments({ _id: clientId })).toBe(0);
  });

  it('keeps logo_uri, policy_uri and tos_uri, and the consent page shows them (the logo over https only)', async () => {
    const pages = {
      logo_uri: 'https://rp.example.com/logo.png',
      policy_uri: 'https://rp.example.com/privacy?a=1&b=2',
      tos_uri: 'https://rp.example.com/terms',
    };
    const config = await registerWithOpenidClient({ client_name: 'Pages RP', ...pages });
    expect(config.clientMetadata()).toMatchObject(pages);
    const { agent } = await signedInAgent(liveApp().app);
    const query = { response_type: 'code', client_id: config.clientMetadata().client_id, redirect_uri: CALLBACK, scope: 'openid' };
    const consent = await agent.get('/oauth/authorize').query(query).expect(200);
    expect(consent.text).toContain(
      '<img class="logo" src="https://rp.example.com/logo.png" alt="Pages RP logo" referrerpolicy="no-referrer">',
    );
    expect(consent.text).toContain('<a href="https://rp.example.com/privacy?a=1&amp;b=2" rel="noopener noreferrer">privacy policy</a>');
    expect(consent.text).toContain('<a href="https://rp.example.com/terms" rel="noopener noreferrer">terms of service</a>');

    const plain = await registerWithOpenidClient({ client_name: 'Plain Logo RP', logo_uri: 'http://rp.example.com/logo.png' });
    const page = await agent
      .get('/oauth/authorize')
      .query({ ...query, client_id: plain.clientMetadata().client_id })
      .expect(200);
    expect(page.text).not.toContain('<img');
    expect(page.text).not.toContain('privacy policy');
  });

  it.each([
    ['logo_uri', 'javascript:alert(1)'],
    ['policy_uri', 'data:text/html,hi'],
    ['tos_uri', 42],
  ])('refuses a %s that is not an http(s) URL, registering nothing', async (field, value) => {
    const before = await ClientModel.countDocuments();
    const res = await request(liveApp().app)
      .post('/oauth/register')
      .set('Authorization', `Bearer ${await accessTokenOf(await createUser())}`)
      .send({ redirect_uris: [CALLBACK], [field]: value })
      .expect(400);
    expect(res.body).toEqual({ error: 'invalid_client_metadata', error_description: `${field} must be an http(s) URL` });
    expect(await ClientModel.countDocuments()).toBe(before);
  });

  it.each([
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,hi'],
    ['plain http off loopback', 'http://rp.example.com/cb'],
    ['a fragment', 'https://rp.example.com/cb#x'],
    ['a scheme without a dot', 'myapp:/cb'],
  ])('refuses a redirect URI with %s, registering nothing', async (_case, uri) => {
    const before = await ClientModel.countDocuments();
    const res = await request(liveApp().app)
      .post('/oauth/register')
      .set('Authorization', `Bearer ${await accessTokenOf(await createUser())}`)
      .send({ redirect_uris: [uri] })
      .expect(400);
    expect(res.body.error).toBe('invalid_redirect_uri');
    expect(await ClientModel.countDocuments()).toBe(before);
  });

  it.each([
    ['an unknown auth method', { token_endpoint_auth_method: 'tls_client_auth' }],
    ['a public client with the password grant', { token_endpoint_auth_method: 'none', grant_types: ['password'] }],
    ['a response type without its grant', { grant_types: ['authorization_code'], response_types: ['token'] }],
    ['an empty client name', { client_name: '' }],
  ])('refuses %s as invalid_client_metadata', async (_case, metadata) => {
    const res = await request(liveApp().app)
      .post('/oauth/register')
      .set('Authorization', `Bearer ${await accessTokenOf(await createUser())}`)
      .send({ redirect_uris: [CALLBACK], ...metadata })
      .expect(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('answers a body that is not JSON metadata in the RFC format, registering nothing', async () => {
    const before = await ClientModel.countDocuments();
    const res = await request(liveApp().app)
      .post('/oauth/register')
      .set('Authorization', `Bearer ${await accessTokenOf(await createUser())}`)
      .type('json')
      .send('"just a string')
      .expect(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    expect(await ClientModel.countDocuments()).toBe(before);
  });

  it('needs an access token from POST /auth', async () => {
    const before = await ClientModel.countDocuments();
    const missing = await request(liveApp().app)
      .post('/oauth/register')
      .send({ redirect_uris: [CALLBACK] })
      .expect(401);
    expect(missing.body.error).toBe('invalid_token');
    await request(liveApp().app)
      .post('/oauth/register')
      .set('Authorization', 'Bearer not-a-jwt')
      .send({ redirect_uris: [CALLBACK] })
      .expect(401);
    expect(await ClientModel.countDocuments()).toBe(before);
  });
});

describe('RP-initiated logout', () => {
  async function signedInWithIdToken() {
    const config = await registerWithOpenidClient({ post_logout_redirect_uris: [AFTER_LOGOUT] });
    const { url, verifier } = await authorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid',
    });
    const { agent } = await signedInAgent(liveApp().app);
    const callback = await approve(agent, Object.fromEntries(url.searchParams));
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, idTokenExpected: true });
    return { config, agent, idToken: tokens.id_token! };
  }

  it('signs out with a valid id_token_hint and goes back to the registered address with state', async () => {
    const { config, agent, idToken } = await signedInWithIdToken();
    const url = oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: AFTER_LOGOUT, state: 'bye' });
    const res = await agent.get(url.pathname + url.search).expect(303);
    expect(res.headers.location).toBe(`${AFTER_LOGOUT}?state=bye`);
    await agent.get('/home').expect(302);
  });

  it('never follows an unregistered post_logout_redirect_uri, and stays signed in', async () => {
    const { config, agent, idToken } = await signedInWithIdToken();
    const url = oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example.com/' });
    const res = await agent.get(url.pathname + url.search).expect(400);
    expect(res.headers.location).toBeUndefined();
    await agent.get('/home').expect(200);
  });

  it('refuses an unsigned (alg none) or tampered id_token_hint', async () => {
    const { agent, idToken } = await signedInWithIdToken();
    const [header, payload] = idToken.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    await agent.get('/oauth/end-session').query({ id_token_hint: none }).expect(400);
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'someone-else' })).toString('base64url')}.${idToken.split('.')[2]}`;
    await agent.get('/oauth/end-session').query({ id_token_hint: tampered }).expect(400);
    await agent.get('/home').expect(200);
  });

  it('asks before signing out without a hint, and signs out on the confirmed form', async () => {
    const { agent } = await signedInAgent(liveApp().app);
    const page = await agent.get('/oauth/end-session').expect(200);
    expect(page.text).toContain('Sign out?');
    await agent.get('/home').expect(200);
    await agent.post('/oauth/end-session').type('form').send({ confirm: 'yes' }).expect(403);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
    const done = await agent.post('/oauth/end-session').type('form').send({ _csrf: csrf, confirm: 'yes' }).expect(200);
    expect(done.text).toContain('Signed out');
    await agent.get('/home').expect(302);
  });

  it('keeps the tokens of other applications (signing out ends the browser session only)', async () => {
    const { config, agent, idToken } = await signedInWithIdToken();
    const tokensBefore = await TokenModel.countDocuments({ clientId: config.clientMetadata().client_id });
    await agent.get('/oauth/end-session').query({ id_token_hint: idToken }).expect(200);
    expect(await TokenModel.countDocuments({ clientId: config.clientMetadata().client_id })).toBe(tokensBefore);
  });
});
