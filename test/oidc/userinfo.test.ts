// RFC 6750 §2.2: a POST to userinfo may carry the access token in a form body instead of the header;
// sending it both ways, or in the query, is refused.
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { passwordGrant } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

it('answers a POST whose form body carries the access token', async () => {
  const { tokens, user } = await passwordGrant(app, { scope: 'openid email' });
  const res = await request(app).post('/oauth/userinfo').type('form').send({ access_token: tokens.access_token }).expect(200);
  expect(res.body).toMatchObject({ sub: user.id, email: user.email });
});

it('refuses a token sent in two places at once, and one in the query string', async () => {
  const { tokens } = await passwordGrant(app, { scope: 'openid' });
  const twice = await request(app)
    .post('/oauth/userinfo')
    .set('Authorization', `Bearer ${tokens.access_token}`)
    .type('form')
    .send({ access_token: tokens.access_token })
    .expect(401);
  expect(twice.body.error).toBe('invalid_token');
  const query = await request(app).get('/oauth/userinfo').query({ access_token: tokens.access_token }).expect(401);
  expect(query.body.error).toBe('invalid_token');
});
