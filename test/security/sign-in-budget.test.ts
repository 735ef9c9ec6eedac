// One budget of failed password checks for POST /auth, the /login page, the catalogue's Basic and
// the OAuth password grant; strict per account and address, much higher per account alone, so a
// stranger cannot lock the owner out; refused requests write nothing.
import mongoose from 'mongoose';
import request from 'supertest';
import { testApp } from '../helpers/app';
import { runCommand } from '../helpers/commands';
import { testDatabaseUriWithName, useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { clientSecretPost, basicAuth, csrfFrom, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'loopback' });
const from = (address: string) => ({ 'X-Forwarded-For': address });
const hitCount = () => mongoose.connection.collection('rate_limit_hits').countDocuments();

const wrongOnAuth = (email: string, address: string) =>
  request(app).post('/auth').set(from(address)).send({ email, password: 'wrong-password' });
const wrongOnBasic = (email: string, address: string) =>
  request(app).get('/api/v1/products').set(from(address)).set('Authorization', basicAuth(email, 'wrong-password'));
async function wrongOnLoginPage(email: string, address: string) {
  const agent = request.agent(app);
  const page = await agent.get('/login').set(from(address));
  return agent
    .post('/login')
    .set(from(address))
    .type('form')
    .send({ _csrf: csrfFrom(page.text), email, password: 'wrong-password' });
}
async function passwordGrant(client: { client_id: string; client_secret: string }, email: string, password: string, address: string) {
  return request(app)
    .post('/oauth/token')
    .set(from(address))
    .type('form')
    .send({ grant_type: 'password', ...clientSecretPost(client), username: email, password });
}

it('counts failures from every password check in one per-account budget', async () => {
  const user = await createUser();
  const client = await registerClient({ grants: ['password'] });
  const address = '203.0.113.10';
  // Remembered as verified and within budget first: neither memory may let it past the budget later.
  await request(app).get('/api/v1/products').set(from(address)).set('Authorization', basicAuth(user.email, user.password)).expect(200);
  const statuses = [];
  for (let i = 0; i < 3; i += 1) statuses.push((await wrongOnBasic(user.email, address)).status);
  for (let i = 0; i < 3; i += 1) statuses.push((await passwordGrant(client, user.email, 'wrong-password', address)).status);
  for (let i = 0; i < 2; i += 1) statuses.push((await wrongOnLoginPage(user.email, address)).status);
  for (let i = 0; i < 2; i += 1) statuses.push((await wrongOnAuth(user.email, address)).status);
  expect(statuses).toEqual([401, 401, 401, 400, 400, 400, 401, 401, 400, 400]);

  // Ten failures: the right password is refused everywhere from this address, each in its own format.
  const auth = await request(app).post('/auth').set(from(address)).send({ email: user.email, password: user.password }).expect(429);
  expect(auth.body).toEqual({ errors: ['Too many requests, try again later'] });
  const basic = await request(app)
    .get('/api/v1/products')
    .set(from(address))
    .set('Authorization', basicAuth(user.email, user.password))
    .expect(429);
  expect(basic.body).toEqual({ error: true, message: expect.any(String), status_code: 429 });
  expect(Number(basic.headers['retry-after'])).toBeGreaterThan(0);
  const grant = await passwordGrant(client, user.email, user.password, address);
  expect(grant.status).toBe(429);
  expect(grant.body.error).toBe('too_many_requests');
  expect(grant.headers['retry-after']).toBeDefined();
});

it('lets the owner sign in from another address after a stranger used up the budget of theirs', async () => {
  const user = await createUser();
  for (let i = 0; i < 10; i += 1) await wrongOnAuth(user.email, '198.51.100.7').expect(400);
  await request(app).post('/auth').set(from('198.51.100.7')).send({ email: user.email, password: user.password }).expect(429);
  await request(app).post('/auth').set(from('192.0.2.55')).send({ email: user.email, password: user.password }).expect(201);
});

it('still bounds guessing spread over many addresses with the per-account limit', async () => {
  const spread = testApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'loopback', RATE_LIMIT_SIGN_IN_PER_ACCOUNT: '4' });
  const user = await createUser();
  for (let i = 0; i < 4; i += 1) {
    await request(spread)
      .post('/auth')
      .set(from(`203.0.113.${100 + i}`))
      .send({ email: user.email, password: 'wrong-password' })
      .expect(400);
  }
  await request(spread).post('/auth').set(from('203.0.113.200')).send({ email: user.email, password: user.password }).expect(429);
});

it('writes nothing for a request refused by a limit', async () => {
  const user = await createUser();
  for (let i = 0; i < 10; i += 1) await wrongOnAuth(user.email, '203.0.113.77').expect(400);
  const before = await hitCount();
  await wrongOnAuth(user.email, '203.0.113.77').expect(429);
  await wrongOnBasic(user.email, '203.0.113.77').expect(429);
  expect(await hitCount()).toBe(before);
});

it('does not count successful checks', async () => {
  const user = await createUser();
  for (let i = 0; i < 12; i += 1) {
    await request(app)
      .get('/api/v1/products')
      .set(from('203.0.113.90'))
      .set('Authorization', basicAuth(user.email, user.password))
      .expect(200);
  }
});

describe('a burst of attempts sent at once', () => {
  // Each attempt is counted before its password is checked, so a burst gets no more checks than the
  // budget (10 per account and address by default) however many arrive together.
  const statusesOf = async (attempts: Promise<{ status: number }>[]) => (await Promise.all(attempts)).map((res) => res.status);
  const checked = (statuses: number[], wrong: number) => statuses.filter((status) => status === wrong).length;

  it('POST /auth: 60 wrong passwords at once get at most 10 checks, each counted', async () => {
    const user = await createUser();
    const statuses = await statusesOf(Array.from({ length: 60 }, () => wrongOnAuth(user.email, '203.0.113.31')));
    expect(statuses.filter((status) => status !== 400 && status !== 429)).toEqual([]);
    let checks = checked(statuses, 400);
    expect(checks).toBeLessThanOrEqual(10);
    // Racing attempts may refuse one another, so the burst can get fewer than 10; one at a time fills the rest.
    for (let i = 0; i < 11 && (await wrongOnAuth(user.email, '203.0.113.31')).status === 400; i += 1) checks += 1;
    expect(checks).toBe(10);
    await request(app).post('/auth').set(from('203.0.113.31')).send({ email: user.email, password: user.password }).expect(429);
  });

  it('a burst from one address does not fill the per-account budget: the owner signs in elsewhere', async () => {
    const strict = testApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'loopback', RATE_LIMIT_SIGN_IN_PER_ACCOUNT: '20' });
    const user = await createUser();
    const wrong = () => request(strict).post('/auth').set(from('203.0.113.32')).send({ email: user.email, password: 'wrong-password' });
    const statuses = await statusesOf(Array.from({ length: 100 }, wrong));
    expect(checked(statuses, 400)).toBeLessThanOrEqual(10);
    await request(strict).post('/auth').set(from('192.0.2.32')).send({ email: user.email, password: user.password }).expect(201);
  });

  it('the password grant, the /login page and HTTP Basic hold the same budget under a burst', async () => {
    const user = await createUser();
    const client = await registerClient({ grants: ['password'] });
    const grant = await statusesOf(Array.from({ length: 30 }, () => passwordGrant(client, user.email, 'wrong-password', '203.0.113.33')));
    expect(checked(grant, 400)).toBeLessThanOrEqual(10);
    const other = await createUser();
    const login = await statusesOf(Array.from({ length: 30 }, () => wrongOnLoginPage(other.email, '203.0.113.34')));
    expect(checked(login, 401)).toBeLessThanOrEqual(10);
    const third = await createUser();
    const basic = await statusesOf(Array.from({ length: 100 }, () => wrongOnBasic(third.email, '203.0.113.35')));
    expect(checked(basic, 401)).toBeLessThanOrEqual(10);
    expect(checked(basic, 401) + checked(basic, 429)).toBe(100);
  });
});

it('lifts a locked account with npm run unlock, from every address, and says so', async () => {
  const user = await createUser();
  for (let i = 0; i < 10; i += 1) await wrongOnAuth(user.email, '203.0.113.60').expect(400);
  await request(app).post('/auth').set(from('203.0.113.60')).send({ email: user.email, password: user.password }).expect(429);
  const { stdout } = await runCommand('unlock', [user.email.toUpperCase()], {
    MONGODB_URI: testDatabaseUriWithName(mongoose.connection.name),
    LOG_LEVEL: 'silent',
  });
  expect(stdout).toContain('is unlocked (10 failed sign-ins forgotten)');
  await request(app).post('/auth').set(from('203.0.113.60')).send({ email: user.email, password: user.password }).expect(201);
}, 30_000);
