// Two server processes on one database, requests alternating between them: sessions, CSRF tokens,
// codes, refresh rotation (with its grace period) and JWT refresh grants all live in the database, so
// either can serve any step. What an instance caches (HTTP Basic verifications, access-token lookups,
// clients, users) follows a change made on the other within a second.
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { testDatabaseUriWithName } from '../helpers/db';
import { runCommand } from '../helpers/commands';
import { clientSecretPost } from '../helpers/oauth';
import { msUntilFalse } from '../helpers/polling';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

const TWIN_ISSUER = 'https://twin-issuer.example.com';

let a: ServerProcess;
let b: ServerProcess;
let uri: string;

beforeAll(async () => {
  uri = testDatabaseUriWithName();
  // A short grace period for refresh rotation, to see it work across instances and then end: long
  // enough for two requests on a CI machine whose two cores also run the other test workers.
  // Rate limits on, as in production: the budgets must hold across the two.
  // One PUBLIC_URL, as behind one load balancer: both are the same issuer.
  const env = { MONGODB_URI: uri, OAUTH_REFRESH_GRACE_SECONDS: '5', RATE_LIMITS: 'on', PUBLIC_URL: TWIN_ISSUER };
  [a, b] = await Promise.all([spawnServer(env), spawnServer(env)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

async function call(server: ServerProcess, path: string, init: RequestInit & { cookie?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set('Cookie', init.cookie);
  return fetch(`${server.url}${path}`, { ...init, headers, redirect: 'manual' });
}

const jsonBody = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});
const formBody = (body: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body),
});
const csrfFrom = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1];
/** The consent form's hidden fields (its token and the id of the request it shows). */
const consentFormOf = (html: string) =>
  Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
const read = async (res: Response) => (await res.json()) as Record<string, string>;
const cookieFrom = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))!
    .split(';')[0];

/** The consent page from one instance, the person's approval posted to the other: the code it gives. */
async function approvedCode(pageFrom: ServerProcess, decideOn: ServerProcess, clientId: string, cookie: string, state?: string) {
  const request = { response_type: 'code', client_id: clientId, redirect_uri: 'https://twin.example.com/cb', ...(state && { state }) };
  const consent = await call(pageFrom, `/oauth/authorize?${new URLSearchParams(request).toString()}`, { cookie });
  expect(consent.status).toBe(200);
  const decided = await call(decideOn, '/oauth/authorize', {
    ...formBody({ ...consentFormOf(await consent.text()), decision: 'approve' }),
    cookie,
  });
  expect(decided.status).toBe(302);
  return new URL(decided.headers.get('location')!).searchParams.get('code')!;
}

it('refreshes a JWT on the other instance, and refuses the replay on the first', async () => {
  const created = await call(a, '/users', jsonBody({ email: 'twin-jwt@example.com', password: 'twin-password' }));
  expect(created.status).toBe(201);
  const pair = await read(await call(b, '/auth', jsonBody({ email: 'twin-jwt@example.com', password: 'twin-password' })));
  const refresh = () =>
    ({
      ...jsonBody({ refreshToken: pair.refreshToken }),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${pair.accessToken}` },
    }) as RequestInit;
  expect((await call(a, '/auth/refresh-token', refresh())).status).toBe(201);
  expect((await call(b, '/auth/refresh-token', refresh())).status).toBe(400);
}, 60_000);

/** A new person with a JWT (from A) and a signed-in session (form from A, post to B). */
async function twinPerson(email: string) {
  await call(b, '/users', jsonBody({ email, password: 'twin-password' }));
  const jwt = await read(await call(a, '/auth', jsonBody({ email, password: 'twin-password' })));
  // The form from A (its CSRF cookie is signed with the shared SESSION_SECRET), the post to B.
  const loginPage = await call(a, '/login');
  const signedIn = await call(b, '/login', {
    ...formBody({ _csrf: csrfFrom(await loginPage.text()), email, password: 'twin-password' }),
    cookie: cookieFrom(loginPage, 'csrf'),
  });
  expect(signedIn.status).toBe(303);
  return { bearer: { Authorization: `Bearer ${jwt.accessToken}` }, cookie: cookieFrom(signedIn, 'sid') };
}

async function twinClient(on: ServerProcess, bearer: Record<string, string>, grants: string[]) {
  const registration = { name: 'Twin', website: 'https://twin.example.com', redirect_uri: 'https://twin.example.com/cb', grants };
  const res = await call(on, '/oauth/clients', { ...jsonBody(registration), headers: { 'Content-Type': 'application/json', ...bearer } });
  return (await read(res)) as { client_id: string; client_secret: string };
}

it('runs the OAuth code flow with every step on alternating instances', async () => {
  const { bearer, cookie } = await twinPerson('twin-oauth@example.com');
  const client = await twinClient(b, bearer, ['authorization_code', 'refresh_token']);

  // Consent page from A, decision to B.
  const code = await approvedCode(a, b, client.client_id, cookie, 'twin');

  // Exchange on A, use on B, rotate on A, replay on B.
  const exchange = {
    grant_type: 'authorization_code',
    ...clientSecretPost(client),
    code,
    redirect_uri: 'https://twin.example.com/cb',
  };
  const tokens = await read(await call(a, '/oauth/token', formBody(exchange)));
  expect(tokens.access_token).toBeDefined();
  const me = await call(b, '/api/user', { headers: { Authorization: `Bearer ${tokens.access_token}` } });
  expect((await read(me)).email).toBe('twin-oauth@example.com');
  const rotate = {
    grant_type: 'refresh_token',
    ...clientSecretPost(client),
    refresh_token: tokens.refresh_token,
  };
  const rotated = await read(await call(a, '/oauth/token', formBody(rotate)));
  // Within the grace period the same refresh token, presented again on the other instance, still works.
  const again = await call(b, '/oauth/token', formBody(rotate));
  expect(again.status).toBe(200);
  const graced = await read(again);
  expect(graced.refresh_token).not.toBe(rotated.refresh_token);
  await new Promise((resolve) => setTimeout(resolve, 5200));
  // After it, a replay revokes the whole family, tokens issued in the grace period included.
  expect((await call(b, '/oauth/token', formBody(rotate))).status).toBe(400);
  for (const token of [rotated.access_token, graced.access_token]) {
    expect((await call(a, '/api/user', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
  }
  expect((await call(b, '/oauth/token', formBody(exchange))).status).toBe(400);
}, 60_000);

it('signs a device in across instances, and a revoke on one ends its token on the other', async () => {
  const { bearer, cookie } = await twinPerson('twin-device@example.com');
  const client = await twinClient(a, bearer, ['urn:ietf:params:oauth:grant-type:device_code']);
  const started = await read(await call(a, '/oauth/device_authorization', formBody(clientSecretPost(client))));
  // The person types the code on B and approves on A; the device polls B.
  const form = await call(b, '/device', { cookie });
  const consent = await call(b, '/device', { ...formBody({ _csrf: csrfFrom(await form.text()), user_code: started.user_code }), cookie });
  expect(consent.status).toBe(200);
  const decided = await call(a, '/device/decision', {
    ...formBody({ _csrf: csrfFrom(await consent.text()), user_code: started.user_code, decision: 'approve' }),
    cookie,
  });
  expect(decided.status).toBe(200);
  const poll = formBody({
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    ...clientSecretPost(client),
    device_code: started.device_code,
  });
  const tokens = await read(await call(b, '/oauth/token', poll));
  const me = (on: ServerProcess) => call(on, '/api/user', { headers: { Authorization: `Bearer ${tokens.access_token}` } });
  expect((await me(a)).status).toBe(200);
  expect((await me(b)).status).toBe(200);

  expect((await call(b, `/oauth/grants/${client.client_id}`, { method: 'DELETE', headers: bearer })).status).toBe(204);
  // At once where it was revoked, within a second on the other (which looked the token up before).
  expect((await me(b)).status).toBe(401);
  expect(await msUntilFalse(async () => (await me(a)).status === 200)).toBeLessThanOrEqual(1000);
}, 60_000);

it('a new password or a deleted user ends HTTP Basic on the other instance within a second, at once on its own', async () => {
  const people = ['twin-basic-1@example.com', 'twin-basic-2@example.com'];
  const ids: string[] = [];
  for (const email of people) ids.push((await read(await call(a, '/users', jsonBody({ email, password: 'twin-password' })))).id);
  const products = (on: ServerProcess, email: string) =>
    call(on, '/api/v1/products', { headers: { Authorization: `Basic ${Buffer.from(`${email}:twin-password`).toString('base64')}` } });
  for (const email of people) {
    for (const on of [a, b]) expect((await products(on, email)).status).toBe(200);
  }

  const changed = await call(a, `/users/${ids[0]}`, { ...jsonBody({ password: 'another-password' }), method: 'PATCH' });
  expect(changed.status).toBe(204);
  expect((await products(a, people[0])).status).toBe(401);
  expect(await msUntilFalse(async () => (await products(b, people[0])).status === 200)).toBeLessThanOrEqual(1000);

  expect((await call(b, `/users/${ids[1]}`, { method: 'DELETE' })).status).toBe(204);
  expect((await products(b, people[1])).status).toBe(401);
  expect(await msUntilFalse(async () => (await products(a, people[1])).status === 200)).toBeLessThanOrEqual(1000);
}, 60_000);

it('a consent revoked on one instance is asked for again on the other within a second, at once on its own', async () => {
  const { bearer, cookie } = await twinPerson('twin-consent@example.com');
  const client = await twinClient(a, bearer, ['authorization_code']);
  await approvedCode(a, b, client.client_id, cookie);
  const request = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: 'https://twin.example.com/cb' });
  // Remembered on both: each answers with a code (and keeps the consent in memory).
  for (const on of [a, b]) expect((await call(on, `/oauth/authorize?${request.toString()}`, { cookie })).status).toBe(302);
  expect((await call(a, `/oauth/grants/${client.client_id}`, { method: 'DELETE', headers: bearer })).status).toBe(204);
  expect((await call(a, `/oauth/authorize?${request.toString()}`, { cookie })).status).toBe(200);
  const askedOnB = await msUntilFalse(async () => (await call(b, `/oauth/authorize?${request.toString()}`, { cookie })).status === 302);
  expect(askedOnB).toBeLessThanOrEqual(1000);
}, 60_000);

it('a revoked access token fails on the other instance within a second for /api/user, userinfo and introspection', async () => {
  const { bearer } = await twinPerson('twin-bearer@example.com');
  const client = await twinClient(a, bearer, ['password']);
  const issued = await call(a, '/oauth/token', {
    ...formBody({
      grant_type: 'password',
      ...clientSecretPost(client),
      username: 'twin-bearer@example.com',
      password: 'twin-password',
      scope: 'openid read',
    }),
  });
  const token = (await read(issued)).access_token;
  const withToken = { headers: { Authorization: `Bearer ${token}` } };
  const accepted = async (on: ServerProcess) => {
    const introspection = await read(await call(on, '/oauth/introspect', formBody({ ...clientSecretPost(client), token })));
    const statuses = [(await call(on, '/api/user', withToken)).status, (await call(on, '/oauth/userinfo', withToken)).status];
    return { introspection: introspection.active as unknown as boolean, statuses };
  };
  expect(await accepted(b)).toEqual({ introspection: true, statuses: [200, 200] });

  expect((await call(a, '/oauth/revoke', formBody({ ...clientSecretPost(client), token }))).status).toBe(200);
  expect(await accepted(a)).toEqual({ introspection: false, statuses: [401, 401] });
  const refusedOnB = await msUntilFalse(async () => {
    const seen = await accepted(b);
    return seen.introspection || seen.statuses.includes(200);
  });
  expect(refusedOnB).toBeLessThanOrEqual(1000);
  expect(await accepted(b)).toEqual({ introspection: false, statuses: [401, 401] });
}, 60_000);

it('a rotated client secret and a deleted client are refused within a second on both instances, at once where deleted', async () => {
  const { bearer } = await twinPerson('twin-client-cache@example.com');
  const client = await twinClient(a, bearer, ['client_credentials']);
  const token = (on: ServerProcess, secret: string) =>
    call(on, '/oauth/token', formBody({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: secret }));
  // Both instances have read (and keep) the client.
  for (const on of [a, b]) expect((await token(on, client.client_secret)).status).toBe(200);

  // A third process, the command, changes the secret: both servers are "elsewhere".
  const rotated = await runCommand('oauth-client', ['rotate-secret', client.client_id, '--json'], {
    MONGODB_URI: uri,
    LOG_LEVEL: 'silent',
  });
  const { client_secret: newSecret } = JSON.parse(rotated.stdout) as { client_secret: string };
  for (const on of [a, b]) {
    expect(await msUntilFalse(async () => (await token(on, client.client_secret)).status === 200)).toBeLessThanOrEqual(1000);
    expect((await token(on, newSecret)).status).toBe(200);
  }

  expect((await call(b, `/oauth/clients/${client.client_id}`, { method: 'DELETE', headers: bearer })).status).toBe(204);
  expect((await token(b, newSecret)).status).toBe(401);
  expect(await msUntilFalse(async () => (await token(a, newSecret)).status === 200)).toBeLessThanOrEqual(1000);
}, 60_000);

it('a profile change reaches userinfo at once on its instance and within a second on the other; a deletion ends it', async () => {
  const email = 'twin-profile@example.com';
  const { id } = await read(await call(a, '/users', jsonBody({ email, password: 'twin-password', firstName: 'Ada' })));
  const { bearer } = {
    bearer: { Authorization: `Bearer ${(await read(await call(a, '/auth', jsonBody({ email, password: 'twin-password' })))).accessToken}` },
  };
  const client = await twinClient(b, bearer, ['password']);
  const issued = await call(
    b,
    '/oauth/token',
    formBody({ grant_type: 'password', ...clientSecretPost(client), username: email, password: 'twin-password', scope: 'openid profile' }),
  );
  const withToken = { headers: { Authorization: `Bearer ${(await read(issued)).access_token}` } };
  const givenName = async (on: ServerProcess) => (await read(await call(on, '/oauth/userinfo', withToken))).given_name;
  for (const on of [a, b]) expect(await givenName(on)).toBe('Ada');

  expect((await call(a, `/users/${id}`, { ...jsonBody({ firstName: 'Grace' }), method: 'PATCH' })).status).toBe(204);
  expect(await givenName(a)).toBe('Grace');
  expect(await msUntilFalse(async () => (await givenName(b)) === 'Ada')).toBeLessThanOrEqual(1000);
  expect(await givenName(b)).toBe('Grace');

  expect((await call(b, `/users/${id}`, { method: 'DELETE' })).status).toBe(204);
  expect((await call(b, '/oauth/userinfo', withToken)).status).toBe(401);
  expect(await msUntilFalse(async () => (await call(a, '/oauth/userinfo', withToken)).status === 200)).toBeLessThanOrEqual(1000);
}, 60_000);

describe('the same request many times at once, split across both instances', () => {
  it('exchanges one authorization code once of 50 tries, and refreshes one seed 000 pair once of 50', async () => {
    const { bearer, cookie } = await twinPerson('twin-burst@example.com');
    const client = await twinClient(a, bearer, ['authorization_code', 'refresh_token']);
    const code = await approvedCode(b, a, client.client_id, cookie);
    const exchange = formBody({
      grant_type: 'authorization_code',
      ...clientSecretPost(client),
      code,
      redirect_uri: 'https://twin.example.com/cb',
    });
    const exchanged = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 ? a : b, '/oauth/token', { ...exchange })));
    expect(exchanged.filter((res) => res.status === 200)).toHaveLength(1);

    const pair = await read(await call(a, '/auth', jsonBody({ email: 'twin-burst@example.com', password: 'twin-password' })));
    const refresh = {
      ...jsonBody({ refreshToken: pair.refreshToken }),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${pair.accessToken}` },
    };
    const refreshed = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 ? a : b, '/auth/refresh-token', refresh)));
    expect(refreshed.filter((res) => res.status === 201)).toHaveLength(1);
  }, 60_000);

  it('accepts one client assertion once of 50 tries', async () => {
    const { bearer } = await twinPerson('twin-assertion@example.com');
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'twin-key', alg: 'ES256' };
    const registered = await call(a, '/oauth/register', {
      ...jsonBody({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] }, grant_types: ['client_credentials'] }),
      headers: { 'Content-Type': 'application/json', ...bearer },
    });
    const clientId = (await read(registered)).client_id;
    const assertion = await new SignJWT({ iss: clientId, sub: clientId, aud: TWIN_ISSUER, jti: 'twin-jti' })
      .setProtectedHeader({ alg: 'ES256', kid: 'twin-key' })
      .setExpirationTime('1m')
      .sign(privateKey);
    const grant = formBody({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 ? a : b, '/oauth/token', { ...grant })));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    // The replays fail to authenticate: 401, until the client's failures from this address pass
    // their budget (RATE_LIMIT_CLIENT_FAILURES_PER_ADDRESS, 30), and 429 after.
    const refused = answers.filter((res) => res.status !== 200).map((res) => res.status);
    expect(refused.every((status) => status === 401 || status === 429)).toBe(true);
    expect(refused.filter((status) => status === 401).length).toBeLessThanOrEqual(30);
    expect(refused).toHaveLength(49);
  }, 60_000);

  it('gives 40 wrong passwords at once no more than the budget of 10 checks', async () => {
    await call(a, '/users', jsonBody({ email: 'twin-budget@example.com', password: 'twin-password' }));
    const wrong = jsonBody({ email: 'twin-budget@example.com', password: 'wrong-password' });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => call(i % 2 ? a : b, '/auth', { ...wrong })));
    const statuses = answers.map((res) => res.status);
    expect(statuses.every((status) => status === 400 || status === 429)).toBe(true);
    expect(statuses.filter((status) => status === 400).length).toBeLessThanOrEqual(10);
  }, 60_000);
});
