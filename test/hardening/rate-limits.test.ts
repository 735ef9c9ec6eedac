import request from 'supertest';
import { testApp, testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { clientSecretPost, csrfFrom, registerClient } from '../helpers/oauth';

useTestDatabase();
const limited = () => testApp({ RATE_LIMITS: 'on' });

async function times(count: number, send: () => Promise<request.Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push((await send()).status);
  return statuses;
}

describe('POST /auth', () => {
  it('answers 429 with Retry-After after 10 failed attempts on one account, and stops checking passwords', async () => {
    const app = limited();
    const user = await createUser();
    const wrong = () => request(app).post('/auth').send({ email: user.email, password: 'wrong-password' });
    expect(await times(10, wrong)).toEqual(Array(10).fill(400));
    const blocked = await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(429);
    expect(blocked.body).toEqual({ errors: ['Too many requests, try again later'] });
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
  });

  it('does not count successful sign-ins', async () => {
    const app = limited();
    const user = await createUser();
    const right = () => request(app).post('/auth').send({ email: user.email, password: user.password });
    expect(await times(12, right)).toEqual(Array(12).fill(201));
  });

  it('counts across server instances, since the counts live in the database', async () => {
    const [first, second] = [limited(), limited()];
    const user = await createUser();
    const statuses = await times(11, async () =>
      request(Math.random() < 0.5 ? first : second)
        .post('/auth')
        .send({ email: user.email, password: 'nope-nope' }),
    );
    expect(statuses).toEqual([...Array(10).fill(400), 429]);
  });

  it('is off with RATE_LIMITS=off', async () => {
    const app = testApp({ RATE_LIMITS: 'off' });
    const user = await createUser();
    const statuses = await times(12, () => request(app).post('/auth').send({ email: user.email, password: 'wrong-password' }));
    expect(statuses).toEqual(Array(12).fill(400));
  });
});

describe('POST /login', () => {
  it('answers a 429 page after 10 failed attempts on one account, shared with POST /auth', async () => {
    const app = limited();
    const user = await createUser();
    await times(9, () => request(app).post('/auth').send({ email: user.email, password: 'wrong-password' }));
    const agent = request.agent(app);
    const page = await agent.get('/login');
    await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), email: user.email, password: 'wrong-password' })
      .expect(401);
    const res = await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), email: user.email, password: user.password })
      .expect(429);
    expect(res.text).toContain('Too many attempts');
    expect(res.headers['retry-after']).toBeDefined();
  });
});

/** A client allowed client_credentials, and a function that asks for one token for it. */
async function clientCredentialsIssuer(app: ReturnType<typeof testApp>) {
  const client = await registerClient({ grants: ['client_credentials'] });
  return () =>
    request(app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'client_credentials', ...clientSecretPost(client) });
}

describe('token endpoints', () => {
  it('answer 429 too_many_requests after RATE_LIMIT_TOKEN_PER_ADDRESS requests from one address in 15 minutes', async () => {
    const app = testApp({ RATE_LIMITS: 'on', RATE_LIMIT_TOKEN_PER_ADDRESS: '12' });
    const issue = await clientCredentialsIssuer(app);
    const statuses = await times(12, issue);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const res = await issue().expect(429);
    expect(res.body).toEqual({ error: 'too_many_requests', error_description: expect.any(String) });
    expect(res.headers['retry-after']).toBeDefined();
    // Variant A shares the address's count.
    await request(app).post('/v1/oauth/token').query({ grant_type: 'refresh_token' }).expect(429);
  });

  it('count per client as well, up to RATE_LIMIT_TOKEN_PER_CLIENT', async () => {
    const app = testApp({ RATE_LIMITS: 'on', RATE_LIMIT_TOKEN_PER_CLIENT: '3' });
    const issue = await clientCredentialsIssuer(app);
    expect(await times(4, issue)).toEqual([200, 200, 200, 429]);
  });

  it('is 300 requests per address and 1000 per client by default', () => {
    expect(testConfig({ RATE_LIMITS: 'on' }).limits).toMatchObject({ tokenPerAddress: 300, tokenPerClient: 1000, refreshPerAddress: 300 });
  });
});

describe('POST /auth/refresh-token', () => {
  it('answers 429 after RATE_LIMIT_REFRESH_PER_ADDRESS requests from one address', async () => {
    const app = testApp({ RATE_LIMITS: 'on', RATE_LIMIT_REFRESH_PER_ADDRESS: '10' });
    const statuses = await times(11, () => request(app).post('/auth/refresh-token').send({}));
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});
