// Third-party-initiated login (OpenID Connect Core §4, Dynamic Client Registration §2): a client
// registers initiate_login_uri; a person who connected it finds an Open link on /home and /account,
// which sends them there with this server as `iss`. Refused at registration unless https, always
// (oidcc-3rd_party-init-login-nohttps), and the link answers 404 for an application never connected.
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { approve, signedInAgent } from '../helpers/oauth';
import { registrationAnswer } from '../helpers/oidc';

useTestDatabase();
const app = testApp();
const CALLBACK = 'https://printer.example.com/callback';
const INITIATE = 'https://printer.example.com/start?from=op';

it('registers initiate_login_uri, returns it, and sends a connected person there with iss', async () => {
  const registered = await registrationAnswer(app, { client_name: 'Printer', redirect_uris: [CALLBACK], initiate_login_uri: INITIATE });
  expect(registered.status).toBe(201);
  expect(registered.body.initiate_login_uri).toBe(INITIATE);
  const clientId = registered.body.client_id as string;
  const { agent } = await signedInAgent(app);
  const open = `/home/applications/${encodeURIComponent(clientId)}/open`;
  // Not connected yet: nothing to open.
  await agent.get(open).expect(404);
  await approve(agent, { response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, scope: 'openid' });
  for (const page of ['/home', '/account']) expect((await agent.get(page).expect(200)).text).toContain(`href="${open}"`);
  const issuer = (await request(app).get('/.well-known/openid-configuration').expect(200)).body.issuer as string;
  const sent = await agent.get(open).expect(303);
  const location = new URL(sent.headers.location);
  expect(`${location.origin}${location.pathname}`).toBe('https://printer.example.com/start');
  expect(Object.fromEntries(location.searchParams)).toEqual({ from: 'op', iss: issuer });
  // Signed out, the link asks to sign in first.
  await request(app).get(open).expect(302);
});

it('shows no Open link for an application without it', async () => {
  const registered = await registrationAnswer(app, { client_name: 'Plain', redirect_uris: [CALLBACK] });
  expect(registered.status).toBe(201);
  const { agent } = await signedInAgent(app);
  await approve(agent, { response_type: 'code', client_id: registered.body.client_id, redirect_uri: CALLBACK });
  expect((await agent.get('/home').expect(200)).text).not.toContain('/open"');
  await agent.get(`/home/applications/${encodeURIComponent(registered.body.client_id)}/open`).expect(404);
});

it.each([
  ['not a URL', 'start here'],
  ['a fragment', 'https://printer.example.com/start#x'],
  ['another scheme', 'javascript:alert(1)'],
])('refuses initiate_login_uri with %s', async (_case, value) => {
  const res = await registrationAnswer(app, { redirect_uris: [CALLBACK], initiate_login_uri: value });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: 'invalid_client_metadata', error_description: expect.stringContaining('initiate_login_uri') });
});

it.each([
  ['in production', { NODE_ENV: 'production' }, 'http://printer.example.com/start'],
  ['outside production too (Dynamic Client Registration §2: the URI MUST use https)', {}, 'http://printer.example.com/start'],
  ['on loopback', {}, 'http://127.0.0.1:8400/start'],
])('refuses http %s', async (_case, env, uri) => {
  const res = await registrationAnswer(testApp(env), { redirect_uris: [CALLBACK], initiate_login_uri: uri });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    error: 'invalid_client_metadata',
    error_description: 'initiate_login_uri must be an https URL without a fragment',
  });
});
