// An authorization code presented again (RFC 6749 §4.1.2): refused, and what it issued is revoked.
// A code never issued here is refused after one read by _id, and never makes the server search the
// tokens by family (issue 54: FerretDB reads the whole collection for any filter but `_id`).
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useMonitoredTestDatabase } from '../helpers/db';
import { authorizationCode, codeExchange, registerClient } from '../helpers/oauth';

const { shapes } = useMonitoredTestDatabase();
const app = testApp();

it('refuses a used code presented again and revokes the tokens it gave', async () => {
  const client = await registerClient({ grants: ['authorization_code', 'refresh_token'] });
  const { code } = await authorizationCode(app, client, { scope: 'openid read' });
  const first = await request(app).post('/oauth/token').type('form').send(codeExchange(client, code)).expect(200);
  await request(app).get('/api/user').set('Authorization', `Bearer ${first.body.access_token}`).expect(200);
  const again = await request(app).post('/oauth/token').type('form').send(codeExchange(client, code)).expect(400);
  expect(again.body.error).toBe('invalid_grant');
  await request(app).get('/api/user').set('Authorization', `Bearer ${first.body.access_token}`).expect(401);
  const refreshed = await request(app).post('/oauth/token').type('form').send({
    grant_type: 'refresh_token',
    client_id: client.client_id,
    client_secret: client.client_secret,
    refresh_token: first.body.refresh_token,
  });
  expect(refreshed.status).toBe(400);
});

it('refuses a made-up code with reads by _id only, and searches no family', async () => {
  const client = await registerClient({ grants: ['authorization_code'] });
  shapes.length = 0;
  const res = await request(app).post('/oauth/token').type('form').send(codeExchange(client, 'made-up-code')).expect(400);
  expect(res.body.error).toBe('invalid_grant');
  const tokenQueries = shapes.filter((shape) => / oauth_(codes|tokens|spent) /.test(shape));
  expect(tokenQueries).toEqual(['find oauth_codes by _id', 'find oauth_spent by _id']);
});
