// Refusals are data, worded at the edge (common/refusals.ts): a 429 is worded once per surface, by
// the presenter mounted with its routes. One spent sign-in budget, met on every surface that checks a
// password (the passkey scripts' `{ error }` is in test/security/bounds.test.ts); then the source,
// where only presenters word a 429.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { TooManyRequestsError } from '../../src/common/rate-limit';
import { TOO_MANY_REQUESTS } from '../../src/common/refusals';
import { tooManyPage } from '../../src/web/layout';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { csrfFrom, registerClient } from '../helpers/oauth';

useTestDatabase();

describe('a 429 on each surface', () => {
  // One failure spends the account's budget at this address, on every surface that checks a password.
  const app = testApp({ RATE_LIMITS: 'on', RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_ADDRESS: '1' });
  let email: string;
  let password: string;

  beforeAll(async () => {
    ({ email, password } = await createUser());
    // Seed 000 answers a wrong password on /auth with 400.
    await request(app).post('/auth').send({ email, password: 'wrong-password' }).expect(400);
  });

  it('is seed 000 JSON on /auth', async () => {
    const res = await request(app).post('/auth').send({ email, password }).expect(429);
    expect(res.body).toEqual({ errors: [TOO_MANY_REQUESTS] });
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('is the OAuth body at the token endpoint', async () => {
    const client = await registerClient({ grants: ['password'] });
    const res = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'password', username: email, password, client_id: client.client_id, client_secret: client.client_secret })
      .expect(429);
    expect(res.body).toEqual({ error: 'too_many_requests', error_description: TOO_MANY_REQUESTS });
  });

  it("is the catalogue's envelope with HTTP Basic", async () => {
    const res = await request(app).get('/api/v1/products').auth(email, password).expect(429);
    expect(res.body).toEqual({ error: true, message: TOO_MANY_REQUESTS, status_code: 429 });
  });

  it('is a page saying how long to wait on /login', async () => {
    const agent = request.agent(app);
    const form = await agent.get('/login').expect(200);
    const res = await agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(form.text), email, password })
      .expect(429);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<h1>Too many attempts</h1>');
    expect(res.text).toMatch(/Please wait (\d+ minutes|a minute) and try again/);
  });
});

describe('a refused parameter on each surface', () => {
  const app = testApp();

  it('is a page at the authorization endpoint (no redirect: nothing says where)', async () => {
    const res = await request(app).get('/oauth/authorize?client_id=a&client_id=b').expect(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<h1>Invalid request</h1>');
    expect(res.text).toContain('Parameter client_id is repeated');
  });

  it('is the OAuth body at the token endpoint, with its own code for a second resource', async () => {
    const repeated = await request(app).post('/oauth/token').type('form').send('grant_type=client_credentials&scope=a&scope=b').expect(400);
    expect(repeated.body).toEqual({ error: 'invalid_request', error_description: 'Parameter scope is repeated' });
    const resources = await request(app)
      .post('/oauth/token')
      .type('form')
      .send('grant_type=client_credentials&resource=https://a.example&resource=https://b.example')
      .expect(400);
    expect(resources.body).toEqual({ error: 'invalid_target', error_description: 'Name one resource: a token here is for one audience' });
  });
});

describe("the pages' wait", () => {
  it.each([
    [30, 'a minute'],
    [900, '15 minutes'],
    [7200, '2 hours'],
  ])('says %i s as %s', (seconds, words) => {
    expect(String(tooManyPage(new TooManyRequestsError(seconds)).body)).toContain(`Please wait ${words} and try again.`);
  });
});

describe('the source', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(path.join(dir, entry.name)) : entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : [],
    );
  const sources = files(path.join(__dirname, '../../src')).map((file) => ({
    file: path.relative(path.join(__dirname, '../..'), file),
    text: readFileSync(file, 'utf8'),
  }));

  it('words a 429 only in the presenters', () => {
    const presenters = [
      'src/common/rate-limit.ts',
      'src/common/refusals.ts',
      'src/web/layout.ts',
      'src/oauth/oauth.errors.ts',
      'src/catalogue/catalogue.guard.ts',
    ];
    expect(
      sources.filter(({ file, text }) => text.includes('tooManyRequestsAs(') && !presenters.includes(file)).map(({ file }) => file),
    ).toEqual([]);
  });

  it('has no controller that catches an error to word it', () => {
    // A refusal is worded by its surface's presenter; one a form shows beside its fields (the console's
    // registration, an upstream provider's failure) by a presenter on that form's route. A promise's
    // `.catch(next)` hands an error on, and is not counted.
    const rewraps = sources.filter(({ file, text }) => file.endsWith('.controller.ts') && /(?<!\.)\bcatch\s*\(/.test(text));
    expect(rewraps.map(({ file }) => file)).toEqual([]);
  });
});
