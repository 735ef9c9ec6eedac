// Dynamic registration as REGISTRATION sets it (issue 53, item 2): `token` (the default) needs an
// access token; `closed` refuses everyone; `open` lets anyone register a public client, as MCP clients
// do, within a cap on those never used, and deletes one that gets no token in time. application_type
// and scope are stored and shown back; a web client using the implicit grant keeps to OIDC Dynamic
// Client Registration §2's redirect rules.
import { trusted } from 'mongoose';
import request from 'supertest';
import { testApp } from '../helpers/app';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { approve, pkcePair, signedInAgent } from '../helpers/oauth';
import { registrationAnswer } from '../helpers/oidc';
import { HitModel } from '../../src/common/rate-limit.model';
import { ClientModel } from '../../src/oauth/clients/clients.model';

useTestDatabase();

const CALLBACK = 'http://127.0.0.1/callback';
const PUBLIC_CLIENT = { client_name: 'An MCP client', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' };
const openApp = (extra: Record<string, string> = {}, clock = movableClock()) => testApp({ REGISTRATION: 'open', ...extra }, { clock });

// Each test starts with no open registration waiting, and so no slot of the cap held.
beforeEach(async () => {
  await ClientModel.deleteMany({ unusedUntil: trusted({ $exists: true }) }).exec();
  await HitModel.deleteMany({ key: 'registration:unused:open' }).exec();
});

describe('REGISTRATION=token (the default)', () => {
  it('refuses a registration without a token, and writes nothing', async () => {
    const before = await ClientModel.countDocuments().exec();
    const res = await request(testApp()).post('/oauth/register').send(PUBLIC_CLIENT).expect(401);
    expect(res.body.error).toBe('invalid_token');
    expect(await ClientModel.countDocuments().exec()).toBe(before);
  });
});

describe('REGISTRATION=closed', () => {
  it('refuses every registration, one with a good token too', async () => {
    const app = testApp({ REGISTRATION: 'closed' });
    expect((await request(app).post('/oauth/register').send(PUBLIC_CLIENT).expect(403)).body.error).toBe('access_denied');
    expect((await registrationAnswer(app, PUBLIC_CLIENT)).status).toBe(403);
  });
});

describe('REGISTRATION=open', () => {
  it('registers a public client without a token: no secret, a registration access token, kept until used', async () => {
    const app = openApp();
    const res = await request(app).post('/oauth/register').send(PUBLIC_CLIENT).expect(201);
    expect(res.body).toMatchObject({ client_name: 'An MCP client', token_endpoint_auth_method: 'none', redirect_uris: [CALLBACK] });
    expect(res.body.client_secret).toBeUndefined();
    expect(res.body.registration_access_token).toEqual(expect.any(String));
    const stored = await ClientModel.findById(res.body.client_id).lean().exec();
    expect(stored?.ownerId).toBeUndefined();
    expect(stored?.unusedUntil).toBeInstanceOf(Date);
  });

  it('refuses a confidential client without a token, and writes nothing', async () => {
    const app = openApp();
    const before = await ClientModel.countDocuments().exec();
    for (const method of ['client_secret_basic', 'client_secret_post', undefined]) {
      const res = await request(app)
        .post('/oauth/register')
        .send({ ...PUBLIC_CLIENT, token_endpoint_auth_method: method })
        .expect(400);
      expect(res.body.error).toBe('invalid_client_metadata');
    }
    expect(await ClientModel.countDocuments().exec()).toBe(before);
  });

  it('still checks a token that is sent (a wrong one is 401, not an open registration)', async () => {
    const res = await request(openApp()).post('/oauth/register').set('Authorization', 'Bearer not-a-token').send(PUBLIC_CLIENT).expect(401);
    expect(res.body.error).toBe('invalid_token');
  });

  it('keeps at most OPEN_REGISTRATION_CAP unused clients, with 100 registrations at once on two instances', async () => {
    const clock = movableClock();
    const apps = [
      openApp({ OPEN_REGISTRATION_CAP: '5', RATE_LIMITS: 'off' }, clock),
      openApp({ OPEN_REGISTRATION_CAP: '5', RATE_LIMITS: 'off' }, clock),
    ];
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        request(apps[i % 2])
          .post('/oauth/register')
          .send(PUBLIC_CLIENT),
      ),
    );
    const created = answers.filter((res) => res.status === 201);
    expect(created.length).toBeGreaterThan(0);
    expect(created.length).toBeLessThanOrEqual(5);
    for (const res of answers.filter((answer) => answer.status !== 201)) {
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('access_denied');
    }
    expect(await ClientModel.countDocuments({ unusedUntil: trusted({ $exists: true }) }).exec()).toBe(created.length);
    // One deleted by its registration access token gives its place back.
    const [first] = created;
    await request(apps[0])
      .delete(`/oauth/register/${first.body.client_id}`)
      .set('Authorization', `Bearer ${first.body.registration_access_token}`)
      .expect(204);
    const fill = [];
    for (let i = 0; i < 10; i++) fill.push((await request(apps[1]).post('/oauth/register').send(PUBLIC_CLIENT)).status);
    expect(fill.filter((status) => status === 201).length).toBe(5 - created.length + 1);
  });

  it('counts open registrations against the per-address budget', async () => {
    const app = openApp({ RATE_LIMITS: 'on', RATE_LIMIT_REGISTRATION_PER_ADDRESS: '3' });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await request(app).post('/oauth/register').send(PUBLIC_CLIENT)).status);
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
  });

  it('deletes a client that got no token in OPEN_REGISTRATION_UNUSED_HOURS, and keeps one that did', async () => {
    const clock = movableClock();
    const app = openApp({ OPEN_REGISTRATION_UNUSED_HOURS: '2', OPEN_REGISTRATION_CAP: '2' }, clock);
    const unused = (await request(app).post('/oauth/register').send(PUBLIC_CLIENT).expect(201)).body;
    const used = (await request(app).post('/oauth/register').send(PUBLIC_CLIENT).expect(201)).body;
    // The used one gets a token through the code flow with PKCE.
    const { verifier, challenge } = pkcePair();
    const { agent } = await signedInAgent(app);
    const back = await approve(agent, {
      response_type: 'code',
      client_id: used.client_id,
      redirect_uri: 'http://127.0.0.1:51234/callback',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    await request(app)
      .post('/oauth/token')
      .type('form')
      .send({
        grant_type: 'authorization_code',
        client_id: used.client_id,
        code: back.searchParams.get('code'),
        redirect_uri: 'http://127.0.0.1:51234/callback',
        code_verifier: verifier,
      })
      .expect(200);
    expect((await ClientModel.findById(used.client_id).lean().exec())?.unusedUntil).toBeUndefined();
    // The cap of 2 was full; the used client gave its place back, and one more fits.
    await request(app).post('/oauth/register').send(PUBLIC_CLIENT).expect(201);
    await request(app).post('/oauth/register').send(PUBLIC_CLIENT).expect(403);
    // Two hours and more later, the next registration sweeps the unused one away.
    clock.move(2 * 3600_000 + 1000);
    await request(app).post('/oauth/register').send(PUBLIC_CLIENT).expect(201);
    const gone = async () => (await ClientModel.findById(unused.client_id).lean().exec()) === null;
    for (let i = 0; i < 50 && !(await gone()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await gone()).toBe(true);
    expect(await ClientModel.findById(used.client_id).lean().exec()).not.toBeNull();
  });
});

describe('application_type and scope', () => {
  it('are stored and shown back, at registration and when read', async () => {
    const app = openApp();
    const res = await request(app)
      .post('/oauth/register')
      .send({ ...PUBLIC_CLIENT, application_type: 'native', scope: 'openid profile mcp:tools' })
      .expect(201);
    expect(res.body).toMatchObject({ application_type: 'native', scope: 'openid profile mcp:tools' });
    const read = await request(app)
      .get(`/oauth/register/${res.body.client_id}`)
      .set('Authorization', `Bearer ${res.body.registration_access_token}`)
      .expect(200);
    expect(read.body).toMatchObject({ application_type: 'native', scope: 'openid profile mcp:tools' });
  });

  it.each([
    ['an unknown application_type', { application_type: 'desktop' }, 'invalid_client_metadata'],
    ['a scope that is not scope values', { scope: 'openid "quoted"' }, 'invalid_client_metadata'],
    ['a scope that is not a string', { scope: ['openid'] }, 'invalid_client_metadata'],
    [
      'a web client using the implicit grant on http',
      { application_type: 'web', grant_types: ['authorization_code', 'implicit'], response_types: ['code', 'id_token'] },
      'invalid_redirect_uri',
    ],
    [
      'a web client using the implicit grant on localhost',
      {
        application_type: 'web',
        redirect_uris: ['https://localhost/callback'],
        grant_types: ['authorization_code', 'implicit'],
        response_types: ['code', 'id_token'],
      },
      'invalid_redirect_uri',
    ],
  ])('refuses %s', async (_name, metadata, error) => {
    const res = await registrationAnswer(testApp(), { ...PUBLIC_CLIENT, token_endpoint_auth_method: 'client_secret_basic', ...metadata });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
  });

  it('lets a web client using the implicit grant register https addresses, and a native one loopback and private-use ones', async () => {
    const web = await registrationAnswer(testApp(), {
      application_type: 'web',
      redirect_uris: ['https://app.example.com/callback'],
      grant_types: ['authorization_code', 'implicit'],
      response_types: ['code', 'id_token'],
    });
    expect(web.status).toBe(201);
    const native = await registrationAnswer(testApp(), {
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/callback', 'com.example.app:/callback'],
    });
    expect(native.status).toBe(201);
  });
});
