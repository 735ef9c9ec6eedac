// Every single-use value holds when the same request arrives many times at once: an authorization
// code, a rotated refresh token (without a grace period), a seed 000 refresh token, a device code and
// the decision on a user code each succeed once. (Across two instances: test/hardening/two-instances.)
import request from 'supertest';
import { DEVICE_CODE_GRANT } from '../../src/oauth/protocol';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import {
  authorizationCode,
  clientSecretPost,
  csrfFrom,
  passwordGrant,
  REDIRECT_URI,
  registerClient,
  signedInAgent,
} from '../helpers/oauth';

useTestDatabase();
const app = testApp();
const times = <T>(n: number, make: () => Promise<T>) => Promise.all(Array.from({ length: n }, make));
const succeeded = (answers: { status: number }[], status = 200) => answers.filter((res) => res.status === status).length;
const token = (body: Record<string, string>) => request(app).post('/oauth/token').type('form').send(body);

it('exchanges an authorization code once of 100 tries at once', async () => {
  const client = await registerClient();
  const { code } = await authorizationCode(app, client, { scope: 'read' });
  const answers = await times(100, () =>
    token({ grant_type: 'authorization_code', ...clientSecretPost(client), code, redirect_uri: REDIRECT_URI }),
  );
  expect(succeeded(answers)).toBe(1);
  expect(answers.every((res) => res.status === 200 || res.body.error === 'invalid_grant')).toBe(true);
});

it('rotates a refresh token at most once of 100 tries at once', async () => {
  const { client, tokens } = await passwordGrant(app);
  const answers = await times(100, () =>
    token({ grant_type: 'refresh_token', ...clientSecretPost(client), refresh_token: tokens.refresh_token }),
  );
  expect(succeeded(answers)).toBeLessThanOrEqual(1);
});

it('refreshes a seed 000 pair once of 100 tries at once', async () => {
  const user = await createUser();
  const pair = (await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201)).body;
  const answers = await times(100, () =>
    request(app)
      .post('/auth/refresh-token')
      .set('Authorization', `Bearer ${pair.accessToken as string}`)
      .send({ refreshToken: pair.refreshToken as string }),
  );
  expect(succeeded(answers, 201)).toBe(1);
});

it('approves a user code once of 20 decisions at once, and its device code gives tokens once of 50 polls', async () => {
  const client = await registerClient({ grants: [DEVICE_CODE_GRANT] });
  const started = (await request(app).post('/oauth/device_authorization').type('form').send(clientSecretPost(client)).expect(200)).body;
  const { agent } = await signedInAgent(app);
  const form = await agent.get('/device').expect(200);
  const consent = await agent
    .post('/device')
    .type('form')
    .send({ _csrf: csrfFrom(form.text), user_code: started.user_code })
    .expect(200);
  const decisions = await times(20, () =>
    agent
      .post('/device/decision')
      .type('form')
      .send({ _csrf: csrfFrom(consent.text), user_code: started.user_code as string, decision: 'approve' }),
  );
  expect(succeeded(decisions)).toBe(1);
  const polls = await times(50, () =>
    token({ grant_type: DEVICE_CODE_GRANT, ...clientSecretPost(client), device_code: started.device_code as string }),
  );
  expect(succeeded(polls)).toBe(1);
});
