// OpenID Connect Back-Channel Logout 1.0: a relying party on loopback registers a
// backchannel_logout_uri, signs a person in, and receives a logout token it verifies with jose when
// that browser session ends (sign-out, RP-initiated logout) or every session does (password change);
// a client that fails is retried and a client that hangs delays nobody.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import request from 'supertest';
import { authorizationUrl, insecure, useLiveApp } from '../helpers/oidc';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { delay, json, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { approve, csrfFrom, signedInAgent, signOutOf } from '../helpers/oauth';
import { eventually } from '../helpers/polling';
import { BACKCHANNEL_LIMITS } from '../../src/oauth/oidc/backchannel.service';

useTestDatabase();
const liveApp = useLiveApp();
const CALLBACK = 'http://127.0.0.1:8400/callback';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

let rp: FakeUpstream;
beforeAll(async () => {
  rp = await startFakeUpstream((_req, res) => json(res, 200, {}));
});
afterAll(() => rp.close());

const received = (path: string) => rp.requests.filter((r) => r.method === 'POST' && r.url.pathname === path);
const arrived = (path: string, count = 1) => eventually(`${count} logout token(s) at ${path}`, () => received(path).length >= count);

/** A registered RP with a back-channel address of its own, and a person signed in to it: the ID token and the browser. */
async function signedInRp(path: string, metadata: Partial<oidc.ClientMetadata> = {}) {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  const config = await oidc.dynamicClientRegistration(
    new URL(liveApp().issuer),
    {
      redirect_uris: [CALLBACK],
      backchannel_logout_uri: `${rp.url}${path}`,
      backchannel_logout_session_required: true,
      post_logout_redirect_uris: ['https://rp.example.com/bye'],
      ...metadata,
    },
    undefined,
    { ...insecure, initialAccessToken: login.body.accessToken },
  );
  const { url, verifier } = await authorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid' });
  const { agent } = await signedInAgent(liveApp().app, person);
  const callback = await approve(agent, Object.fromEntries(url.searchParams));
  const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, idTokenExpected: true });
  return { config, person, agent, idToken: tokens.claims()!, rawIdToken: tokens.id_token! };
}

async function verifiedLogoutToken(body: string, audience: string) {
  const token = new URLSearchParams(body).get('logout_token')!;
  expect(decodeProtectedHeader(token).typ).toBe('logout+jwt');
  const jwks = createRemoteJWKSet(new URL(`${liveApp().issuer}/oauth/jwks`));
  const { payload } = await jwtVerify(token, jwks, { issuer: liveApp().issuer, audience });
  return payload;
}

it('posts a verifiable logout token with the session id when the person signs out', async () => {
  const { config, person, agent, idToken } = await signedInRp('/bc-signout');
  expect(idToken.sid).toEqual(expect.any(String));
  await signOutOf(agent);
  await arrived('/bc-signout');
  const [delivery] = received('/bc-signout');
  expect(delivery.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  const payload = await verifiedLogoutToken(delivery.body, config.clientMetadata().client_id);
  expect(payload).toMatchObject({ sub: person.id, sid: idToken.sid, events: { [EVENT]: {} } });
  expect(payload.jti).toEqual(expect.any(String));
  expect(payload.nonce).toBeUndefined();
});

it('posts one on RP-initiated logout too, signed as the client registered', async () => {
  const { config, agent, idToken, rawIdToken } = await signedInRp('/bc-rp-initiated', { id_token_signed_response_alg: 'ES256' });
  const url = oidc.buildEndSessionUrl(config, { id_token_hint: rawIdToken, post_logout_redirect_uri: 'https://rp.example.com/bye' });
  await agent.get(url.pathname + url.search).expect(303);
  await arrived('/bc-rp-initiated');
  const token = new URLSearchParams(received('/bc-rp-initiated')[0].body).get('logout_token')!;
  expect(decodeProtectedHeader(token).alg).toBe('ES256');
  expect(await verifiedLogoutToken(received('/bc-rp-initiated')[0].body, config.clientMetadata().client_id)).toMatchObject({
    sid: idToken.sid,
  });
});

it('posts one for every session when the password changes', async () => {
  const { config, person } = await signedInRp('/bc-password');
  await request(liveApp().app).patch(`/users/${person.id}`).send({ password: 'a-brand-new-password' }).expect(204);
  await arrived('/bc-password');
  expect(await verifiedLogoutToken(received('/bc-password')[0].body, config.clientMetadata().client_id)).toMatchObject({ sub: person.id });
});

it('tries a failing client again, and tells each client once', async () => {
  let failures = 1;
  rp.handle((req, res) => {
    if (req.url.pathname === '/bc-flaky' && failures-- > 0) return json(res, 500, {});
    json(res, 200, {});
  });
  try {
    const { agent } = await signedInRp('/bc-flaky');
    await signOutOf(agent);
    await arrived('/bc-flaky', 2);
    await delay(300);
    expect(received('/bc-flaky')).toHaveLength(2);
  } finally {
    rp.handle((_req, res) => json(res, 200, {}));
  }
});

it('tells a client deleted before its retry nothing more', async () => {
  let failures = 1;
  rp.handle((req, res) => {
    if (req.url.pathname === '/bc-deleted' && failures-- > 0) return json(res, 500, {});
    json(res, 200, {});
  });
  try {
    const { config, agent } = await signedInRp('/bc-deleted');
    const { client_id: clientId, registration_access_token: token } = config.clientMetadata() as {
      client_id: string;
      registration_access_token: string;
    };
    await signOutOf(agent);
    await arrived('/bc-deleted');
    // The first attempt failed; its retry waits a second. The client is deleted meanwhile.
    await request(liveApp().app).delete(`/oauth/register/${clientId}`).set('Authorization', `Bearer ${token}`).expect(204);
    await delay(BACKCHANNEL_LIMITS.backoffMs[0] + 500);
    expect(received('/bc-deleted')).toHaveLength(1);
  } finally {
    rp.handle((_req, res) => json(res, 200, {}));
  }
});

it('answers the person at once while a client hangs', async () => {
  rp.handle((req, res) => {
    if (req.url.pathname !== '/bc-hangs') json(res, 200, {});
    // Never answered: the server's attempt times out on its own.
  });
  try {
    const { agent } = await signedInRp('/bc-hangs');
    const home = await agent.get('/home').expect(200);
    const started = Date.now();
    await agent
      .post('/logout')
      .type('form')
      .send({ _csrf: csrfFrom(home.text) })
      .expect(303);
    expect(Date.now() - started).toBeLessThan(1000);
    await arrived('/bc-hangs');
  } finally {
    rp.handle((_req, res) => json(res, 200, {}));
  }
});

it('posts nothing to a client that registered no back-channel address', async () => {
  const before = rp.requests.length;
  const { agent } = await signedInRp('/unused', { backchannel_logout_uri: undefined });
  await signOutOf(agent);
  await delay(300);
  expect(rp.requests.length).toBe(before);
});

it.each([
  [{ backchannel_logout_uri: 'javascript:alert(1)' }, 'backchannel_logout_uri must be an https URL of a public host, without a fragment'],
  [
    { backchannel_logout_uri: 'https://rp.example.com/bc#x' },
    'backchannel_logout_uri must be an https URL of a public host, without a fragment',
  ],
  [{ backchannel_logout_session_required: 'yes' }, 'backchannel_logout_session_required must be true or false'],
])('refuses %j at registration', async (metadata, description) => {
  const person = await createUser();
  const login = await request(liveApp().app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  const res = await request(liveApp().app)
    .post('/oauth/register')
    .set('Authorization', `Bearer ${login.body.accessToken}`)
    .send({ redirect_uris: [CALLBACK], ...metadata })
    .expect(400);
  expect(res.body).toEqual({ error: 'invalid_client_metadata', error_description: description });
});

it('says so in discovery', async () => {
  const { body } = await request(liveApp().app).get('/.well-known/openid-configuration').expect(200);
  expect(body).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
  expect(body.claims_supported).toContain('sid');
});
