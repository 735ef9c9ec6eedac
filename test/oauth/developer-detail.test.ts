// What a developer gets to go on when a request is refused: outside production the refusal pages
// name the client_id and the redirect URIs, OAuth refusals are logged with their code and reason
// (never a secret), and a browser asking for an unknown page gets a page, not JSON.
import request from 'supertest';
import { createApp } from '../../src/app';
import { testApp, testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { capturingLogger } from '../helpers/logs';
import { REDIRECT_URI, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

it('names the unknown client_id, and the sent and registered redirect URIs, outside production', async () => {
  const unknown = await request(app).get('/oauth/authorize').query({ response_type: 'code', client_id: 'no-such-app' }).expect(400);
  expect(unknown.text).toContain('client_id &quot;no-such-app&quot; is not a registered client');
  const client = await registerClient();
  const wrong = await request(app)
    .get('/oauth/authorize')
    .query({ response_type: 'code', client_id: client.client_id, redirect_uri: 'https://elsewhere.example.com/cb' })
    .expect(400);
  expect(wrong.text).toContain('Sent: https://elsewhere.example.com/cb');
  expect(wrong.text).toContain(`Registered for ${client.client_id}: ${REDIRECT_URI}`);
});

it('keeps those details off the page in production', async () => {
  const production = testApp({ NODE_ENV: 'production' });
  const res = await request(production).get('/oauth/authorize').query({ response_type: 'code', client_id: 'no-such-app' }).expect(400);
  expect(res.text).toContain('Unknown application');
  expect(res.text).not.toContain('no-such-app');
});

it('logs an OAuth refusal at info with its code and reason, and no secret', async () => {
  const { logger, lines } = capturingLogger();
  const logged = createApp({ config: testConfig({ LOG_LEVEL: 'info' }), logger });
  await request(logged)
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: 'bogus', client_id: 'x', client_secret: 'a-client-secret-value' })
    .expect(401);
  const refusal = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.msg === 'OAuth request refused');
  expect(refusal).toMatchObject({ level: 30, error: 'invalid_client', description: expect.any(String), status: 401 });
  expect(lines.join('\n')).not.toContain('a-client-secret-value');
});

it('answers a browser an HTML 404 page, and a program JSON', async () => {
  const page = await request(app).get('/nowhere').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8').expect(404);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.text).toContain('Not found');
  const json = await request(app).get('/nowhere').set('Accept', '*/*').expect(404);
  expect(json.body).toEqual({ error: 'Not found' });
});
