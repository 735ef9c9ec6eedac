// Resources (RFC 8707) and JWT access tokens (RFC 9068) through HTTP: an operator registers an API
// (the admin API, or `npm run resources`), a client names it in `resource` at the token endpoint, the
// authorization endpoint or PAR, and gets a token for that audience alone, with that API's scopes
// alone; jose verifies it against /oauth/jwks. This server's own APIs are the issuer's resource: they
// take its JWTs with no database read, and refuse tokens for other audiences. Revocation and
// introspection are honest about what a JWT can and cannot do.
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type JSONWebKeySet,
} from 'jose';
import { accessTokenHash } from '../../src/oauth/dpop/dpop.service';
import mongoose from 'mongoose';
import request from 'supertest';
import { ActivityModel } from '../../src/account/activity.model';
import { LIMITS } from '../../src/oauth/protocol';
import { ResourceModel } from '../../src/oauth/resources/resources.model';
import { TokenModel } from '../../src/oauth/tokens/tokens.model';
import { testApp } from '../helpers/app';
import { runCommand } from '../helpers/commands';
import { testDatabaseUriWithName, useMonitoredTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import {
  authorizationCode,
  basicAuth,
  clientSecretPost,
  codeExchange,
  registerClient,
  signedInAgent,
  approve,
  operatorToken as operatorOf,
  REDIRECT_URI,
} from '../helpers/oauth';

const { commands } = useMonitoredTestDatabase();
const app = testApp();
const ORDERS = 'https://orders.example.com/api';
let issuer: string;
let jwks: ReturnType<typeof createLocalJWKSet>;

beforeAll(async () => {
  issuer = (await request(app).get('/.well-known/openid-configuration').expect(200)).body.issuer;
});
beforeEach(async () => {
  await ResourceModel.deleteMany({});
});

/** The key set, read again (a test may have made new keys). */
async function verify(token: string) {
  jwks = createLocalJWKSet((await request(app).get('/oauth/jwks').expect(200)).body as JSONWebKeySet);
  return jwtVerify(token, jwks, { issuer, typ: 'at+jwt' });
}

const operatorToken = () => operatorOf(app);

async function registerOrders(extra: Record<string, unknown> = {}) {
  const token = await operatorToken();
  await request(app)
    .post('/admin/api/resources')
    .set('Authorization', `Bearer ${token}`)
    .send({ resource: ORDERS, scopes: ['orders:read', 'orders:write'], ...extra })
    .expect(201);
}

const clientCredentials = (client: { client_id: string; client_secret: string }, form: Record<string, string>) =>
  request(app)
    .post('/oauth/token')
    .auth(client.client_id, client.client_secret)
    .type('form')
    .send({ grant_type: 'client_credentials', ...form });

describe('the admin API for resources', () => {
  it('registers, pages and deletes resources for a token with the admin scope', async () => {
    const token = await operatorToken();
    const admin = (req: request.Test) => req.set('Authorization', `Bearer ${token}`);
    const created = await admin(request(app).post('/admin/api/resources'))
      .send({ resource: ORDERS, scopes: ['orders:read'] })
      .expect(201);
    expect(created.body).toEqual({
      resource: ORDERS,
      scopes: ['orders:read'],
      format: 'jwt',
      access_token_lifetime: 600,
      signing_alg: 'ES256',
    });
    expect(created.headers['cache-control']).toBe('no-store');
    await admin(request(app).post('/admin/api/resources'))
      .send({
        resource: 'https://billing.example.com',
        scopes: ['bill'],
        format: 'opaque',
        access_token_lifetime: 300,
        signing_alg: 'RS256',
      })
      .expect(201);
    const first = await admin(request(app).get('/admin/api/resources?limit=1')).expect(200);
    expect(first.body).toEqual({
      resources: [expect.objectContaining({ resource: 'https://billing.example.com' })],
      next: 'https://billing.example.com',
    });
    const second = await admin(request(app).get('/admin/api/resources').query({ limit: 1, after: first.body.next })).expect(200);
    expect(second.body).toEqual({ resources: [expect.objectContaining({ resource: ORDERS })], next: null });
    await admin(request(app).delete(`/admin/api/resources/${encodeURIComponent(ORDERS)}`)).expect(204);
    // Each change is an event naming the operator's client (docs/operations.md).
    const events = (await ActivityModel.find().sort({ at: 1 }).lean()).filter(
      (event) => event.kind.startsWith('resource-') && event.detail?.startsWith('https://orders'),
    );
    expect(events.slice(-2).map((event) => [event.kind, event.actor?.startsWith('client:')])).toEqual([
      ['resource-registered', true],
      ['resource-deleted', true],
    ]);
    await admin(request(app).delete(`/admin/api/resources/${encodeURIComponent(ORDERS)}`)).expect(404);
    expect(await ResourceModel.countDocuments()).toBe(1);
  });

  it('refuses bad input with a 400 that says why, a second registration with 409, and changes nothing', async () => {
    const token = await operatorToken();
    const post = (body: object) => request(app).post('/admin/api/resources').set('Authorization', `Bearer ${token}`).send(body);
    const cases: [object, RegExp][] = [
      [{ resource: 'orders', scopes: ['a'] }, /absolute URI/],
      [{ resource: `${ORDERS}#part`, scopes: ['a'] }, /fragment/],
      [{ resource: `${ORDERS}?v=1`, scopes: ['a'] }, /query/],
      [{ resource: issuer, scopes: ['a'] }, /own APIs/],
      [{ resource: ORDERS, scopes: [] }, /1 to 50/],
      [{ resource: ORDERS, scopes: ['openid'] }, /not an API scope/],
      [{ resource: ORDERS, scopes: ['has space'] }, /not an API scope/],
      [{ resource: ORDERS, scopes: 'a' }, /array of strings/],
      [{ resource: ORDERS, scopes: ['a'], format: 'paseto' }, /jwt, opaque/],
      [{ resource: ORDERS, scopes: ['a'], access_token_lifetime: 5 }, /60 to 86400/],
      [{ resource: ORDERS, scopes: ['a'], signing_alg: 'HS256' }, /one of RS256, ES256/],
    ];
    const malformed = await request(app)
      .post('/admin/api/resources')
      .set('Authorization', `Bearer ${token}`)
      .type('json')
      .send('{"resource": ')
      .expect(400);
    expect(malformed.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    for (const [body, message] of cases) {
      const res = await post(body).expect(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(message) });
    }
    expect(await ResourceModel.countDocuments()).toBe(0);
    await post({ resource: ORDERS, scopes: ['a'] }).expect(201);
    expect((await post({ resource: ORDERS, scopes: ['b'] }).expect(409)).body.error_description).toMatch(/registered already/);
    expect((await ResourceModel.findById(ORDERS).lean())?.scopes).toEqual(['a']);
  });

  it('registers one of 100 identical requests at once across two instances', async () => {
    const token = await operatorToken();
    const other = testApp();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        request(i % 2 ? app : other)
          .post('/admin/api/resources')
          .set('Authorization', `Bearer ${token}`)
          .send({ resource: ORDERS, scopes: ['a'] }),
      ),
    );
    expect(results.filter((res) => res.status === 201)).toHaveLength(1);
    expect(results.filter((res) => res.status === 409)).toHaveLength(99);
  });

  it(`holds at most ${LIMITS.resources} resources`, async () => {
    await ResourceModel.insertMany(
      Array.from({ length: LIMITS.resources }, (_, i) => ({
        _id: `https://api${i}.example.com`,
        scopes: ['a'],
        format: 'jwt',
        accessTokenLifetime: 600,
        signingAlg: 'RS256',
        createdAt: new Date(),
      })),
    );
    const token = await operatorToken();
    const res = await request(app)
      .post('/admin/api/resources')
      .set('Authorization', `Bearer ${token}`)
      .send({ resource: ORDERS, scopes: ['a'] });
    expect(res.status).toBe(400);
    expect(res.body.error_description).toMatch(`at most ${LIMITS.resources}`);
  });

  it('takes only tokens with the admin scope, which only a client the operator allowed gets', async () => {
    await request(app).get('/admin/api/resources').expect(401);
    const client = await registerClient({ grants: ['client_credentials'] });
    expect((await clientCredentials(client, { scope: 'admin' }).expect(400)).body.error).toBe('invalid_scope');
    const plain = (await clientCredentials(client, {}).expect(200)).body.access_token;
    const refused = await request(app).get('/admin/api/resources').set('Authorization', `Bearer ${plain}`).expect(403);
    expect(refused.body.error).toBe('insufficient_scope');
    // Nor does a person get it through the authorization endpoint.
    const { agent } = await signedInAgent(app);
    const people = await registerClient();
    const answer = await agent
      .get('/oauth/authorize')
      .query({ response_type: 'code', client_id: people.client_id, redirect_uri: REDIRECT_URI, scope: 'admin' });
    expect(new URL(answer.headers.location).searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('npm run resources', () => {
  const env = () => ({
    MONGODB_URI: testDatabaseUriWithName(mongoose.connection.name),
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'http://localhost:3000',
  });

  it('creates, lists and deletes, and says what is wrong with bad arguments', async () => {
    const created = await runCommand(
      'resources',
      ['create', '--id', ORDERS, '--scopes', 'orders:read,orders:write', '--format', 'opaque', '--json'],
      env(),
    );
    expect(JSON.parse(created.stdout)).toMatchObject({ resource: ORDERS, scopes: ['orders:read', 'orders:write'], format: 'opaque' });
    const listed = JSON.parse((await runCommand('resources', ['list', '--json'], env())).stdout);
    expect(listed.own).toMatchObject({ resource: 'http://localhost:3000', format: 'jwt' });
    expect(listed.resources).toEqual([expect.objectContaining({ resource: ORDERS })]);
    expect((await runCommand('resources', ['list'], env())).stdout).toContain("(this server's own APIs)");
    await expect(runCommand('resources', ['create', '--id', ORDERS, '--scopes', 'x'], env())).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('registered already'),
    });
    await expect(runCommand('resources', ['frobnicate'], env())).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('usage:'),
    });
    await expect(runCommand('resources', ['create', '--id', ORDERS], env())).rejects.toMatchObject({ code: 2 });
    expect((await runCommand('resources', ['delete', '--id', ORDERS], env())).stdout).toContain('deleted');
    expect(await ResourceModel.countDocuments()).toBe(0);
  }, 60_000);
});

describe('JWT access tokens for a registered resource', () => {
  it('gives a client its own RFC 9068 token for the audience, with its scopes only, and writes nothing', async () => {
    await registerOrders();
    const client = await registerClient({ grants: ['client_credentials'] });
    await clientCredentials(client, { resource: ORDERS }).expect(200);
    const from = commands.length;
    const res = await clientCredentials(client, { resource: ORDERS, scope: 'orders:read read' }).expect(200);
    expect(commands.slice(from).filter((command) => command.startsWith('insert') || command.startsWith('update'))).toEqual([]);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'orders:read' });
    expect(decodeProtectedHeader(res.body.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'ES256', kid: expect.any(String) });
    const { payload } = await verify(res.body.access_token);
    expect(payload).toEqual({
      iss: issuer,
      aud: ORDERS,
      sub: client.client_id,
      client_id: client.client_id,
      scope: 'orders:read',
      iat: expect.any(Number),
      exp: payload.iat! + 600,
      jti: expect.any(String),
    });
    expect(await TokenModel.countDocuments({ clientId: client.client_id })).toBe(0);
    // Without a scope, the resource's own scopes.
    const all = await clientCredentials(client, { resource: ORDERS }).expect(200);
    expect(all.body.scope).toBe('orders:read orders:write');
  });

  it('signs with the resource algorithm and lives its lifetime', async () => {
    await registerOrders({ signing_alg: 'RS256', access_token_lifetime: 120 });
    const client = await registerClient({ grants: ['client_credentials'] });
    const res = await clientCredentials(client, { resource: ORDERS }).expect(200);
    expect(res.body.expires_in).toBe(120);
    expect(decodeProtectedHeader(res.body.access_token).alg).toBe('RS256');
    await verify(res.body.access_token);
  });

  it('refuses unknown and malformed resources with invalid_target, and scopes the API does not take with invalid_scope', async () => {
    await registerOrders();
    const client = await registerClient({ grants: ['client_credentials'] });
    for (const resource of ['https://unknown.example.com', 'not-a-uri', `${ORDERS}#x`]) {
      const res = await clientCredentials(client, { resource }).expect(400);
      expect(res.body.error).toBe('invalid_target');
    }
    const twice = await request(app)
      .post('/oauth/token')
      .auth(client.client_id, client.client_secret)
      .type('form')
      .send(`grant_type=client_credentials&resource=${encodeURIComponent(ORDERS)}&resource=${encodeURIComponent(issuer)}`)
      .expect(400);
    expect(twice.body.error).toBe('invalid_target');
    expect((await clientCredentials(client, { resource: ORDERS, scope: 'read' }).expect(400)).body.error).toBe('invalid_scope');
  });

  it('keeps an opaque resource opaque: introspection names its audience, and this server’s APIs refuse it', async () => {
    await registerOrders({ format: 'opaque' });
    const client = await registerClient({ grants: ['client_credentials'] });
    const res = await clientCredentials(client, { resource: ORDERS, scope: 'orders:write' }).expect(200);
    expect(res.body.access_token).not.toContain('.');
    const introspected = await request(app)
      .post('/oauth/introspect')
      .auth(client.client_id, client.client_secret)
      .type('form')
      .send({ token: res.body.access_token })
      .expect(200);
    expect(introspected.body).toMatchObject({ active: true, aud: ORDERS, scope: 'orders:write' });
    const catalogue = await request(app).get('/api/v1/products').set('Authorization', `Bearer ${res.body.access_token}`).expect(401);
    expect(catalogue.body).toMatchObject({ error: true, status_code: 401 });
  });

  it("is refused by this server's own APIs, which are another audience", async () => {
    await registerOrders();
    const client = await registerClient({ grants: ['client_credentials'] });
    const res = await clientCredentials(client, { resource: ORDERS }).expect(200);
    const refused = await request(app).get('/api/v1/products').set('Authorization', `Bearer ${res.body.access_token}`).expect(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer realm="catalogue", error="invalid_token"/);
  });

  it('revokes a client’s own JWT for introspection, which keeps saying active: false until it expires', async () => {
    await registerOrders();
    const client = await registerClient({ grants: ['client_credentials'] });
    const token = (await clientCredentials(client, { resource: ORDERS }).expect(200)).body.access_token;
    const introspect = () =>
      request(app).post('/oauth/introspect').auth(client.client_id, client.client_secret).type('form').send({ token }).expect(200);
    expect((await introspect()).body).toMatchObject({ active: true, aud: ORDERS, sub: client.client_id, token_type: 'Bearer' });
    // Another client learns nothing of it, and cannot revoke it.
    const stranger = await registerClient({ grants: ['client_credentials'] });
    await request(app).post('/oauth/revoke').auth(stranger.client_id, stranger.client_secret).type('form').send({ token }).expect(200);
    const seen = await request(app)
      .post('/oauth/introspect')
      .auth(stranger.client_id, stranger.client_secret)
      .type('form')
      .send({ token })
      .expect(200);
    expect(seen.body).toEqual({ active: false });
    expect((await introspect()).body.active).toBe(true);
    await request(app).post('/oauth/revoke').auth(client.client_id, client.client_secret).type('form').send({ token }).expect(200);
    expect((await introspect()).body).toEqual({ active: false });
  });
});

describe("this server's own APIs as a resource", () => {
  it('take a client’s JWT at the catalogue with no database read', async () => {
    const client = await registerClient({ grants: ['client_credentials'] });
    const res = await clientCredentials(client, { resource: issuer }).expect(200);
    expect((await verify(res.body.access_token)).payload).toMatchObject({ aud: issuer, scope: 'read' });
    await request(app).get('/api/v1/products').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
    const from = commands.length;
    await request(app).get('/api/v1/products').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
    expect(
      commands.slice(from).filter((command) => !command.startsWith('find products') && !command.startsWith('aggregate products')),
    ).toEqual([]);
    // /api/user is a person's.
    const user = await request(app).get('/api/user').set('Authorization', `Bearer ${res.body.access_token}`).expect(403);
    expect(user.body.error).toBe('insufficient_scope');
  });

  it("take a person's JWT at /api/user and userinfo with no database read once it was seen (its record, client and person kept)", async () => {
    const client = await registerClient({ grants: ['authorization_code'] });
    const { code } = await authorizationCode(app, client, { scope: 'openid email read', resource: issuer });
    const res = await request(app).post('/oauth/token').type('form').send(codeExchange(client, code)).expect(200);
    const bearer = `Bearer ${res.body.access_token as string}`;
    await request(app).get('/api/user').set('Authorization', bearer).expect(200);
    const from = commands.length;
    await request(app).get('/api/user').set('Authorization', bearer).expect(200);
    await request(app).get('/oauth/userinfo').set('Authorization', bearer).expect(200);
    expect(commands.slice(from).filter((command) => !command.endsWith(' change_signals'))).toEqual([]);
  });

  it("take a person's JWT from the code flow at /api/user and userinfo; revocation ends it for introspection", async () => {
    const client = await registerClient({ grants: ['authorization_code', 'refresh_token'] });
    const { code, user } = await authorizationCode(app, client, { scope: 'openid email read', resource: issuer });
    const res = await request(app).post('/oauth/token').type('form').send(codeExchange(client, code)).expect(200);
    const { payload } = await verify(res.body.access_token);
    const person = await request(app).get('/api/user').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
    const info = await request(app).get('/oauth/userinfo').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
    expect(info.body).toMatchObject({ sub: payload.sub, email: user.email });
    expect(payload).toMatchObject({
      aud: issuer,
      client_id: client.client_id,
      scope: 'openid email read',
      acr: '1',
      amr: ['pwd'],
    });
    expect(typeof payload.auth_time).toBe('number');
    expect(person.body.email).toBe(user.email);
    const introspect = () =>
      request(app)
        .post('/oauth/introspect')
        .type('form')
        .send({ token: res.body.access_token, client_id: client.client_id, client_secret: client.client_secret });
    expect((await introspect().expect(200)).body).toMatchObject({ active: true, aud: issuer, sub: payload.sub });
    // A refresh gives another JWT for the same audience; another resource is invalid_target.
    const refresh = (extra: Record<string, string>) =>
      request(app)
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: res.body.refresh_token, ...clientSecretPost(client), ...extra });
    expect((await refresh({ resource: ORDERS }).expect(400)).body.error).toBe('invalid_target');
    const renewed = await refresh({}).expect(200);
    expect((await verify(renewed.body.access_token)).payload.aud).toBe(issuer);
    await request(app)
      .post('/oauth/revoke')
      .type('form')
      .send({ token: res.body.access_token, client_id: client.client_id, client_secret: client.client_secret })
      .expect(200);
    expect((await introspect().expect(200)).body).toEqual({ active: false });
  });

  it('keep the audience of the authorization: a different resource at the exchange is refused before the code is used', async () => {
    await registerOrders();
    const client = await registerClient({ grants: ['authorization_code'] });
    const { code } = await authorizationCode(app, client, { scope: 'orders:read', resource: ORDERS });
    const wrong = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({ ...codeExchange(client, code), resource: issuer })
      .expect(400);
    expect(wrong.body.error).toBe('invalid_target');
    const res = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({ ...codeExchange(client, code), resource: ORDERS })
      .expect(200);
    expect((await verify(res.body.access_token)).payload).toMatchObject({ aud: ORDERS, scope: 'orders:read' });
  });

  it('answer an unknown resource at the authorization endpoint with invalid_target at the redirect URI, and through PAR', async () => {
    const client = await registerClient({ grants: ['authorization_code'] });
    const { agent } = await signedInAgent(app, await createUser());
    const answer = await agent
      .get('/oauth/authorize')
      .query({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, resource: 'https://nowhere.example.com' });
    expect(new URL(answer.headers.location).searchParams.get('error')).toBe('invalid_target');
    const pushed = await request(app)
      .post('/oauth/par')
      .set('Authorization', basicAuth(client.client_id, client.client_secret))
      .type('form')
      .send({ response_type: 'code', redirect_uri: REDIRECT_URI, resource: 'https://nowhere.example.com' })
      .expect(400);
    expect(pushed.body.error).toBe('invalid_target');
    await registerOrders();
    const ok = await request(app)
      .post('/oauth/par')
      .set('Authorization', basicAuth(client.client_id, client.client_secret))
      .type('form')
      .send({ response_type: 'code', redirect_uri: REDIRECT_URI, resource: ORDERS, scope: 'orders:write' })
      .expect(201);
    const location = await approve(agent, { client_id: client.client_id, request_uri: ok.body.request_uri });
    const res = await request(app)
      .post('/oauth/token')
      .type('form')
      .send(codeExchange(client, location.searchParams.get('code')!))
      .expect(200);
    expect((await verify(res.body.access_token)).payload).toMatchObject({ aud: ORDERS, scope: 'orders:write' });
  });

  it('binds a JWT to a DPoP key by cnf.jkt: the catalogue takes it with a proof by that key, not as Bearer', async () => {
    const client = await registerClient({ grants: ['client_credentials'] });
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const proof = (htm: string, htu: string, token?: string) =>
      new SignJWT({
        htm,
        htu,
        jti: crypto.randomUUID(),
        iat: Math.floor(Date.now() / 1000),
        ...(token ? { ath: accessTokenHash(token) } : {}),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(privateKey);
    const res = await clientCredentials(client, { resource: issuer })
      .set('DPoP', await proof('POST', `${issuer}/oauth/token`))
      .expect(200);
    expect(res.body.token_type).toBe('DPoP');
    const token = res.body.access_token as string;
    expect((await verify(token)).payload.cnf).toEqual({ jkt: await calculateJwkThumbprint(jwk) });
    const products = `${issuer}/api/v1/products`;
    await request(app)
      .get('/api/v1/products')
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', await proof('GET', products, token))
      .expect(200);
    const asBearer = await request(app).get('/api/v1/products').set('Authorization', `Bearer ${token}`).expect(401);
    expect(asBearer.headers['www-authenticate']).toMatch(/^DPoP /);
    expect(asBearer.body).toMatchObject({ error: true, status_code: 401 });
  });

  it('refuses a second resource at the authorization endpoint (a page: nothing is checked yet) and at PAR (invalid_target)', async () => {
    await registerOrders();
    const client = await registerClient({ grants: ['authorization_code'] });
    const twice = `response_type=code&client_id=${client.client_id}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&resource=${encodeURIComponent(ORDERS)}&resource=${encodeURIComponent(issuer)}`;
    const page = await request(app).get(`/oauth/authorize?${twice}`).expect(400);
    expect(page.text).toContain('Name one resource');
    const pushed = await request(app)
      .post('/oauth/par')
      .set('Authorization', basicAuth(client.client_id, client.client_secret))
      .type('form')
      .send(twice.replace(/client_id=[^&]+&/, ''))
      .expect(400);
    expect(pushed.body.error).toBe('invalid_target');
  });

  it("gives the implicit flow's access token for the resource, its fragment naming the resource's scopes only", async () => {
    await registerOrders();
    const client = await registerClient({ grants: ['implicit'] });
    const { agent } = await signedInAgent(app);
    const location = await approve(agent, {
      response_type: 'token',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'orders:read read',
      resource: ORDERS,
    });
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('scope')).toBe('orders:read');
    expect((await verify(fragment.get('access_token')!)).payload).toMatchObject({ aud: ORDERS, scope: 'orders:read', amr: ['pwd'] });
  });
});
