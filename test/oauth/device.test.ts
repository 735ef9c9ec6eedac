// The device authorization grant (RFC 8628): openid-client's device functions complete a sign-in, and
// the polling answers, the verification page and its refusals follow the RFC.
import * as oidc from 'openid-client';
import request from 'supertest';
import { DEVICE_CODE_GRANT } from '../../src/oauth/protocol';
import { DeviceAuthorizationModel } from '../../src/oauth/device/device.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { clientSecretPost, csrfFrom, registerClient, signedInAgent } from '../helpers/oauth';
import { insecure, useLiveApp } from '../helpers/oidc';

useTestDatabase();

const liveApp = useLiveApp({ OAUTH_DEVICE_POLL_INTERVAL: '1' });
const app = () => liveApp().app;
const deviceClient = () => registerClient({ grants: [DEVICE_CODE_GRANT, 'refresh_token'] });

async function startDevice(client: { client_id: string; client_secret: string }, scope = 'read') {
  const res = await request(app())
    .post('/oauth/device_authorization')
    .type('form')
    .send({ ...clientSecretPost(client), scope })
    .expect(200);
  return res.body as {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    interval: number;
  };
}

const poll = (client: { client_id: string; client_secret: string }, deviceCode: string) =>
  request(app())
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: DEVICE_CODE_GRANT, ...clientSecretPost(client), device_code: deviceCode });

/** A signed-in person types the code on the verification page and decides. */
async function personDecides(userCode: string, decision: 'approve' | 'deny') {
  const { agent } = await signedInAgent(app());
  const form = await agent.get('/device').expect(200);
  expect(form.text).toContain('name="user_code"');
  const consent = await agent
    .post('/device')
    .type('form')
    .send({ _csrf: csrfFrom(form.text), user_code: userCode.toLowerCase() })
    .expect(200);
  expect(consent.text).toContain('>Approve</button>');
  return agent
    .post('/device/decision')
    .type('form')
    .send({ _csrf: csrfFrom(consent.text), user_code: userCode, decision })
    .expect(200);
}

describe('device sign-in with openid-client', () => {
  it('completes: initiateDeviceAuthorization, a person approves, pollDeviceAuthorizationGrant gets tokens', async () => {
    const client = await deviceClient();
    const config = await oidc.discovery(
      new URL(liveApp().issuer),
      client.client_id,
      undefined,
      oidc.ClientSecretPost(client.client_secret),
      insecure,
    );
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${liveApp().issuer}/oauth/device_authorization`);
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid read' });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri_complete).toBe(`${liveApp().issuer}/device?user_code=${started.user_code}`);
    const [tokens] = await Promise.all([oidc.pollDeviceAuthorizationGrant(config, started), personDecides(started.user_code, 'approve')]);
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.claims()?.aud).toBe(client.client_id);
    await request(app()).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
  }, 30_000);
});

describe('polling', () => {
  it('answers authorization_pending, then slow_down when polled faster than interval', async () => {
    const client = await deviceClient();
    const started = await startDevice(client);
    expect((await poll(client, started.device_code).expect(400)).body.error).toBe('authorization_pending');
    expect((await poll(client, started.device_code).expect(400)).body.error).toBe('slow_down');
    const stored = await DeviceAuthorizationModel.findOne({ clientId: client.client_id }).lean();
    expect(stored?.interval).toBe(started.interval + 5);
  });

  it('answers access_denied when the person denies, and the device code is then gone', async () => {
    const client = await deviceClient();
    const started = await startDevice(client);
    await personDecides(started.user_code, 'deny');
    expect((await poll(client, started.device_code).expect(400)).body.error).toBe('access_denied');
    expect((await poll(client, started.device_code).expect(400)).body.error).toBe('invalid_grant');
  });

  it('is single-use, refuses another client and an expired code', async () => {
    const client = await deviceClient();
    const started = await startDevice(client);
    await personDecides(started.user_code, 'approve');
    const other = await deviceClient();
    expect((await poll(other, started.device_code).expect(400)).body.error).toBe('invalid_grant');
    await poll(client, started.device_code).expect(200);
    expect((await poll(client, started.device_code).expect(400)).body.error).toBe('invalid_grant');

    const late = await startDevice(client);
    await DeviceAuthorizationModel.updateMany({ clientId: client.client_id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await poll(client, late.device_code).expect(400)).body.error).toBe('expired_token');
  });

  it('refuses a client not allowed the device grant', async () => {
    const client = await registerClient({ grants: ['authorization_code'] });
    const res = await request(app()).post('/oauth/device_authorization').type('form').send(clientSecretPost(client)).expect(400);
    expect(res.body.error).toBe('unauthorized_client');
    expect(await DeviceAuthorizationModel.countDocuments({ clientId: client.client_id })).toBe(0);
  });
});

describe('the verification page', () => {
  it('sends a person who is not signed in to sign in first, keeping the code', async () => {
    const res = await request(app()).get('/device').query({ user_code: 'BCDF-GHJK' }).expect(302);
    expect(res.headers.location).toBe(`/login?return_to=${encodeURIComponent('/device?user_code=BCDF-GHJK')}`);
  });

  it('sends a form sent from a browser no longer signed in to sign in, coming back to the page', async () => {
    const agent = request.agent(app());
    const page = await agent.get('/login').expect(200);
    const res = await agent
      .post('/device')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), user_code: 'BCDF-GHJK' })
      .expect(303);
    expect(res.headers.location).toBe(`/login?return_to=${encodeURIComponent('/device')}`);
  });

  it('says so for a wrong or used code, and changes nothing without the CSRF token', async () => {
    const client = await deviceClient();
    const started = await startDevice(client);
    const { agent } = await signedInAgent(app());
    const form = await agent.get('/device').expect(200);
    const wrong = await agent
      .post('/device')
      .type('form')
      .send({ _csrf: csrfFrom(form.text), user_code: 'ZZZZ-ZZZZ' })
      .expect(400);
    expect(wrong.text).toContain('That code is wrong, has expired or was already used');
    await agent.post('/device/decision').type('form').send({ user_code: started.user_code, decision: 'approve' }).expect(403);
    expect((await DeviceAuthorizationModel.findOne({ clientId: client.client_id }).lean())?.status).toBe('pending');
  });

  it('counts typed codes against a limit per address', async () => {
    const limited = testApp({ RATE_LIMITS: 'on', RATE_LIMIT_USER_CODE_PER_ADDRESS: '2' });
    const { agent } = await signedInAgent(limited);
    const form = await agent.get('/device').expect(200);
    const attempt = () =>
      agent
        .post('/device')
        .type('form')
        .send({ _csrf: csrfFrom(form.text), user_code: 'ZZZZ-ZZZZ' });
    expect((await attempt()).status).toBe(400);
    expect((await attempt()).status).toBe(400);
    const refused = await attempt();
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
  });
});
