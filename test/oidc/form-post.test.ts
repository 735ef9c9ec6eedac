// OAuth 2.0 Form Post Response Mode: the response is a page that posts itself to the registered
// redirect URI, every value escaped, under its own content security policy, never cached or framed.
// (test/e2e/oauth-browser.test.ts watches Chromium post it, with and without JavaScript.)
import { createHash } from 'node:crypto';
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { approve, registerClient, REDIRECT_URI, signedInAgent, unescapeHtml } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

const fieldsOf = (page: string) =>
  Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], unescapeHtml(m[2])]));

const hostileState = `"><script>alert(1)</script>&'`;

async function formPostResponse(extra: Record<string, string>, decision: 'approve' | 'deny' = 'approve') {
  const client = await registerClient({ grants: ['authorization_code', 'implicit'] });
  const { agent } = await signedInAgent(app);
  const query = { client_id: client.client_id, redirect_uri: REDIRECT_URI, response_mode: 'form_post', state: hostileState, ...extra };
  const consent = await agent.get('/oauth/authorize').query(query).expect(200);
  const fields = fieldsOf(consent.text);
  return agent
    .post('/oauth/authorize')
    .type('form')
    .send({ ...fields, decision })
    .expect(200);
}

it('answers the code flow with a page that posts code, state and iss to the redirect URI, escaped', async () => {
  const res = await formPostResponse({ response_type: 'code', scope: 'openid' });
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.text).toContain(`<form method="post" action="${REDIRECT_URI}">`);
  expect(res.text).not.toContain('<script>alert(1)');
  expect(fieldsOf(res.text)).toEqual({ code: expect.any(String), state: hostileState, iss: expect.any(String) });

  const policy = res.headers['content-security-policy'];
  const script = /<script>([^<]*)<\/script>/.exec(res.text)![1];
  expect(policy).toContain(`script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`);
  expect(policy).toContain('form-action https://client.example.com;');
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).toContain("default-src 'none'");
});

it('posts implicit tokens the same way, never in a URL', async () => {
  const res = await formPostResponse({ response_type: 'id_token token', scope: 'openid', nonce: 'n' });
  expect(Object.keys(fieldsOf(res.text)).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'iss', 'scope', 'state', 'token_type']);
});

it('posts an error (a denial) the same way', async () => {
  const res = await formPostResponse({ response_type: 'code', scope: 'read' }, 'deny');
  expect(fieldsOf(res.text)).toMatchObject({ error: 'access_denied', state: hostileState });
});

it('posts a request error too, and refuses an unknown response mode by redirect', async () => {
  const client = await registerClient();
  const { agent } = await signedInAgent(app);
  const base = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, state: 's' };
  const posted = await agent
    .get('/oauth/authorize')
    .query({ ...base, response_mode: 'form_post', prompt: 'none login' })
    .expect(200);
  expect(fieldsOf(posted.text)).toMatchObject({ error: 'invalid_request', state: 's' });
  const unknown = await agent
    .get('/oauth/authorize')
    .query({ ...base, response_mode: 'web_message' })
    .expect(302);
  expect(new URL(unknown.headers.location).searchParams.get('error')).toBe('invalid_request');
});

it('answers a remembered consent with the page at once, and discovery lists form_post', async () => {
  const client = await registerClient();
  const { agent } = await signedInAgent(app);
  const query = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'read' };
  await approve(agent, query);
  const again = await agent
    .get('/oauth/authorize')
    .query({ ...query, response_mode: 'form_post' })
    .expect(200);
  expect(fieldsOf(again.text).code).toBeTruthy();
  const { body } = await request(app).get('/.well-known/openid-configuration');
  expect(body.response_modes_supported).toEqual(['query', 'fragment', 'form_post', 'query.jwt', 'fragment.jwt', 'form_post.jwt', 'jwt']);
});
