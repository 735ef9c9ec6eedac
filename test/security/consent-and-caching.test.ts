// What a person sees before approving (where the answer goes, that a device is being connected), what
// a self-registered client cannot get (the password grant), and that personal pages and answers are
// never cached on the way.
import request from 'supertest';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import { DEVICE_CODE_GRANT } from '../../src/oauth/protocol';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { clientSecretPost, csrfFrom, passwordGrant, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

it('refuses the password grant to dynamic registration, registering nothing', async () => {
  const user = await createUser();
  const { accessToken } = (await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201)).body;
  const before = await ClientModel.countDocuments();
  const res = await request(app)
    .post('/oauth/register')
    .set('Authorization', `Bearer ${accessToken as string}`)
    .send({ grant_types: ['password'] })
    .expect(400);
  expect(res.body.error).toBe('invalid_client_metadata');
  expect(await ClientModel.countDocuments()).toBe(before);
});

it('shows on the consent page where the answer goes, and says so when it is not the website', async () => {
  const client = await registerClient({ website: 'https://bank.example', redirect_uri: 'https://phish.example/cb' });
  const { agent } = await signedInAgent(app);
  const page = await agent
    .get('/oauth/authorize')
    .query({ response_type: 'code', client_id: client.client_id, redirect_uri: 'https://phish.example/cb', scope: 'read' })
    .expect(200);
  expect(page.text).toContain('Your answer goes to <strong>phish.example</strong>, which is <strong>not</strong> the website above');
  const honest = await registerClient();
  const same = await agent
    .get('/oauth/authorize')
    .query({ response_type: 'code', client_id: honest.client_id, redirect_uri: REDIRECT_URI, scope: 'read' })
    .expect(200);
  expect(same.text).toContain('Your answer goes to <strong>client.example.com</strong>.');
});

it('says on the consent page reached from /device that a device is being connected', async () => {
  const client = await registerClient({ grants: [DEVICE_CODE_GRANT] });
  const started = await request(app).post('/oauth/device_authorization').type('form').send(clientSecretPost(client)).expect(200);
  const { agent } = await signedInAgent(app);
  const form = await agent.get('/device').expect(200);
  const consent = await agent
    .post('/device')
    .type('form')
    .send({ _csrf: csrfFrom(form.text), user_code: started.body.user_code as string })
    .expect(200);
  expect(consent.text).toContain('You are connecting a <strong>device</strong>');
});

it('marks GET /api/user and /home no-store', async () => {
  const { tokens } = await passwordGrant(app);
  const user = await request(app).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
  expect(user.headers['cache-control']).toBe('no-store');
  const { agent } = await signedInAgent(app);
  const home = await agent.get('/home').expect(200);
  expect(home.headers['cache-control']).toBe('no-store');
});
