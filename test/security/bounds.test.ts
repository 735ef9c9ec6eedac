// What an anonymous or free caller can create or start is bounded per client address, and refusals
// (429 with Retry-After, in each route's own format) create nothing; a flood of password checks from
// one address does not make another person wait behind it.
import mongoose from 'mongoose';
import request from 'supertest';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import { DeviceAuthorizationModel } from '../../src/oauth/device/device.model';
import { FACTOR_RULES } from '../../src/factors/factors.rules';
import { DEVICE_CODE_GRANT, LIMITS } from '../../src/oauth/protocol';
import { configurePasswordHashing, OWASP_MINIMUM } from '../../src/common/passwords';
import { testApp } from '../helpers/app';
import { TEST_HASHING } from '../helpers/fast-hashing';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { basicAuth, clientSecretPost, csrfFrom, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const from = (address: string) => ({ 'X-Forwarded-For': address });
const limited = (env: Record<string, string>) => testApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'loopback', ...env });
const statusCounts = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});
const users = () => mongoose.connection.collection('users').countDocuments();

describe('POST /users', () => {
  it('creates at most RATE_LIMIT_SIGN_UP_PER_ADDRESS accounts per address, then 429 in the seed shape', async () => {
    const app = limited({ RATE_LIMIT_SIGN_UP_PER_ADDRESS: '3' });
    const signUp = (i: number, address = '203.0.113.40') =>
      request(app)
        .post('/users')
        .set(from(address))
        .send({ email: `signup${i}@example.com`, password: 'secret-enough' });
    for (let i = 0; i < 3; i += 1) await signUp(i).expect(201);
    const before = await users();
    const refused = await signUp(3).expect(429);
    expect(refused.body).toEqual({ errors: ['Too many requests, try again later'] });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await users()).toBe(before);
    await signUp(4, '192.0.2.40').expect(201);
  });

  it('holds the limit when 40 sign-ups arrive at once', async () => {
    const app = limited({ RATE_LIMIT_SIGN_UP_PER_ADDRESS: '10' });
    const before = await users();
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        request(app)
          .post('/users')
          .set(from('203.0.113.41'))
          .send({ email: `burst${i}@example.com`, password: 'secret-enough' }),
      ),
    ).then((responses) => responses.map((res) => res.status));
    const counts = statusCounts(statuses);
    expect((counts[201] ?? 0) + (counts[429] ?? 0)).toBe(40);
    expect(counts[201] ?? 0).toBeLessThanOrEqual(10);
    expect((await users()) - before).toBe(counts[201] ?? 0);
  });
});

describe('clients an account registers', () => {
  async function bearerOn(app: ReturnType<typeof testApp>) {
    const user = await createUser();
    const { accessToken } = (await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201)).body;
    return `Bearer ${accessToken as string}`;
  }
  const registration = (i: number) => ({
    name: `App ${i}`,
    website: 'https://app.example.com',
    redirect_uri: `https://app.example.com/cb${i}`,
  });
  const owned = () => ClientModel.countDocuments();

  it(`caps an account at ${LIMITS.clientsPerOwner} clients, even when 80 registrations arrive at once`, async () => {
    const app = testApp();
    const bearer = await bearerOn(app);
    const before = await owned();
    const statuses = await Promise.all(
      Array.from({ length: 80 }, (_, i) => request(app).post('/oauth/clients').set('Authorization', bearer).send(registration(i))),
    ).then((responses) => responses.map((res) => res.status));
    const counts = statusCounts(statuses);
    expect((counts[201] ?? 0) + (counts[409] ?? 0)).toBe(80);
    expect((await owned()) - before).toBe(counts[201] ?? 0);
    expect(counts[201] ?? 0).toBeLessThanOrEqual(LIMITS.clientsPerOwner);
    // Filled up one at a time to the cap; then both ways of registering refuse.
    for (let i = 0; i < LIMITS.clientsPerOwner && (await owned()) - before < LIMITS.clientsPerOwner; i += 1) {
      await request(app)
        .post('/oauth/clients')
        .set('Authorization', bearer)
        .send(registration(100 + i))
        .expect(201);
    }
    const refused = await request(app).post('/oauth/clients').set('Authorization', bearer).send(registration(999)).expect(409);
    expect(refused.body.errors[0]).toContain(String(LIMITS.clientsPerOwner));
    const dynamic = await request(app)
      .post('/oauth/register')
      .set('Authorization', bearer)
      .send({ redirect_uris: ['https://app.example.com/dyn'] })
      .expect(403);
    expect(dynamic.body.error).toBe('access_denied');
    expect((await owned()) - before).toBe(LIMITS.clientsPerOwner);
  });

  it('lists them a page at a time, with only what a listing shows', async () => {
    const app = testApp();
    const bearer = await bearerOn(app);
    for (let i = 0; i < 3; i += 1) await request(app).post('/oauth/clients').set('Authorization', bearer).send(registration(i)).expect(201);
    const first = await request(app).get('/oauth/clients').query({ limit: 2 }).set('Authorization', bearer).expect(200);
    const second = await request(app).get('/oauth/clients').query({ limit: 2, page: 1 }).set('Authorization', bearer).expect(200);
    expect(first.body.map((client: { name: string }) => client.name)).toEqual(['App 0', 'App 1']);
    expect(second.body.map((client: { name: string }) => client.name)).toEqual(['App 2']);
    expect(Object.keys(first.body[0]).sort()).toEqual(['client_id', 'grants', 'name', 'redirect_uri', 'website']);
    await request(app).get('/oauth/clients').query({ limit: 0 }).set('Authorization', bearer).expect(400);
  });

  it('counts registrations from one address, both ways together, against RATE_LIMIT_REGISTRATION_PER_ADDRESS', async () => {
    const app = limited({ RATE_LIMIT_REGISTRATION_PER_ADDRESS: '2' });
    const bearer = await bearerOn(app);
    await request(app).post('/oauth/clients').set(from('203.0.113.50')).set('Authorization', bearer).send(registration(1)).expect(201);
    await request(app)
      .post('/oauth/register')
      .set(from('203.0.113.50'))
      .set('Authorization', bearer)
      .send({ redirect_uris: ['https://app.example.com/dyn'] })
      .expect(201);
    const refused = await request(app).post('/oauth/clients').set(from('203.0.113.50')).set('Authorization', bearer).send(registration(2));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ errors: ['Too many requests, try again later'] });
    const dynamic = await request(app)
      .post('/oauth/register')
      .set(from('203.0.113.50'))
      .set('Authorization', bearer)
      .send({ redirect_uris: ['https://app.example.com/dyn2'] });
    expect(dynamic.status).toBe(429);
    expect(dynamic.body.error).toBe('too_many_requests');
  });
});

describe('POST /oauth/device_authorization', () => {
  it('starts at most RATE_LIMIT_DEVICE_AUTHORIZATION_PER_ADDRESS per address, then too_many_requests', async () => {
    const app = limited({ RATE_LIMIT_DEVICE_AUTHORIZATION_PER_ADDRESS: '3' });
    const client = await registerClient({ grants: [DEVICE_CODE_GRANT] });
    const start = () =>
      request(app).post('/oauth/device_authorization').set(from('203.0.113.42')).type('form').send(clientSecretPost(client));
    for (let i = 0; i < 3; i += 1) await start().expect(200);
    const refused = await start().expect(429);
    expect(refused.body.error).toBe('too_many_requests');
    expect(refused.headers['retry-after']).toBeDefined();
    expect(await DeviceAuthorizationModel.countDocuments({ clientId: client.client_id })).toBe(3);
  });

  it('starts at most RATE_LIMIT_DEVICE_AUTHORIZATION_PER_CLIENT for one client, whatever the address', async () => {
    const app = limited({ RATE_LIMIT_DEVICE_AUTHORIZATION_PER_CLIENT: '2' });
    const client = await registerClient({ grants: [DEVICE_CODE_GRANT] });
    const start = (address: string) =>
      request(app).post('/oauth/device_authorization').set(from(address)).type('form').send(clientSecretPost(client));
    await start('203.0.113.43').expect(200);
    await start('203.0.113.44').expect(200);
    await start('203.0.113.45').expect(429);
  });
});

describe('POST /device/decision', () => {
  it('counts typed codes against the same per-address budget as POST /device', async () => {
    const app = limited({ RATE_LIMIT_USER_CODE_PER_ADDRESS: '2' });
    const { agent } = await signedInAgent(app);
    const form = await agent.get('/device').expect(200);
    const decide = () =>
      agent
        .post('/device/decision')
        .type('form')
        .send({ _csrf: csrfFrom(form.text), user_code: 'ZZZZ-ZZZZ', decision: 'approve' });
    expect((await decide()).status).toBe(400);
    expect((await decide()).status).toBe(400);
    const refused = await decide();
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
  });
});

describe('password checks from a flood', () => {
  it('answers 100 Basic checks from one address at once with 401 or 429, and another person signs in meanwhile', async () => {
    const app = limited({});
    const person = await createUser();
    const flood = Array.from({ length: 100 }, (_, i) =>
      request(app)
        .get('/api/v1/products')
        .set(from('203.0.113.46'))
        .set('Authorization', basicAuth(`nobody${i}@example.com`, 'guess')),
    );
    const login = request(app).post('/auth').set(from('192.0.2.46')).send({ email: person.email, password: person.password });
    const [signedIn, ...flooded] = await Promise.all([login, ...flood]);
    expect(signedIn.status).toBe(201);
    const counts = statusCounts(flooded.map((res) => res.status));
    // Checked and refused, or refused at once by the sign-in budget or the hashing queue: nothing else.
    expect((counts[401] ?? 0) + (counts[429] ?? 0)).toBe(100);
  });
});

describe('an honest burst from one address (a backend, or visitors behind a proxy)', () => {
  const cleanups: (() => void)[] = [];
  const afterThis = (cleanup: () => void) => cleanups.push(cleanup);
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('makes 24 accounts sent 8 at a time from one address with RATE_LIMITS=off, refusing none', async () => {
    const app = testApp({ RATE_LIMITS: 'off' });
    const before = await users();
    const statuses: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          request(app)
            .post('/users')
            .send({ email: `burst${round}-${i}@example.com`, password: 'secret-enough' }),
        ),
      );
      statuses.push(...answers.map((res) => res.status));
    }
    expect(statusCounts(statuses)).toEqual({ 201: 24 });
    expect(await users()).toBe(before + 24);
  });

  it('answers 10 password grants at once from one address with tokens, none refused (at production hashing cost)', async () => {
    const app = testApp({ RATE_LIMITS: 'off' });
    configurePasswordHashing(OWASP_MINIMUM);
    afterThis(() => configurePasswordHashing(TEST_HASHING));
    const person = await createUser();
    const client = await registerClient({ grants: ['password'] });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        request(app)
          .post('/oauth/token')
          .type('form')
          .send({ grant_type: 'password', username: person.email, password: person.password, ...clientSecretPost(client) }),
      ),
    );
    expect(statusCounts(answers.map((res) => res.status))).toEqual({ 200: 10 });
  });
});

describe('passkey sign-in options', () => {
  it("gives one address FACTOR_RULES.passkeyOptionsPerAddress in 15 minutes, then 429 in the route's own { error } shape", async () => {
    const app = limited({});
    const agent = request.agent(app);
    const login = await agent.get('/login').set(from('203.0.113.61')).expect(200);
    const ask = () =>
      agent
        .post('/login/passkey/options')
        .set(from('203.0.113.61'))
        .send({ _csrf: csrfFrom(login.text) });
    for (let i = 0; i < FACTOR_RULES.passkeyOptionsPerAddress; i += 1) await ask().expect(200);
    const refused = await ask().expect(429);
    expect(refused.body).toEqual({ error: 'Too many requests, try again later' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not held up.
    const other = request.agent(app);
    const page = await other.get('/login').set(from('198.51.100.61')).expect(200);
    await other
      .post('/login/passkey/options')
      .set(from('198.51.100.61'))
      .send({ _csrf: csrfFrom(page.text) })
      .expect(200);
  });
});
