// Odd input and races that used to end badly: deep JSON, concurrent updates of one user, anonymous
// page views that stored sessions.
import mongoose from 'mongoose';
import request from 'supertest';
import { SessionModel } from '../../src/session/session.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';

useTestDatabase();
const app = testApp();

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('deeply nested JSON', () => {
  it('is refused with 400 at parse time, on the users routes and the OAuth ones alike', async () => {
    const users = await request(app)
      .post('/users')
      .set('Content-Type', 'application/json')
      .send(`{"email":${nested(5000)},"password":"secret1"}`)
      .expect(400);
    expect(users.body).toEqual({ errors: [expect.stringContaining('nested more than 32 levels')] });
    const oauth = await request(app)
      .post('/oauth/token')
      .set('Content-Type', 'application/json')
      .send(`{"grant_type":${nested(5000)}}`)
      .expect(400);
    expect(oauth.body).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('nested') });
    expect(await mongoose.connection.collection('users').countDocuments()).toBe(0);
  });

  it('is accepted up to 32 levels, and brackets inside strings do not count', async () => {
    const res = await request(app)
      .post('/users')
      .set('Content-Type', 'application/json')
      .send(`{"email":${nested(31)},"password":"secret1"}`)
      .expect(400);
    expect(res.body.errors[0]).toMatchObject({ path: 'email' });
    await request(app)
      .post('/users')
      .send({ email: 'brackets@example.com', password: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[' })
      .expect(201);
  });
});

it('answers an oversized form on the OAuth endpoints in the OAuth format', async () => {
  for (const path of ['/oauth/introspect', '/oauth/revoke', '/oauth/token', '/v1/oauth/token']) {
    const res = await request(app)
      .post(path)
      .type('form')
      .send(`token=${'x'.repeat(110_000)}`)
      .expect(413);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  }
});

it('answers an oversized form a browser posts with a page, as the other refusals of those forms', async () => {
  for (const path of ['/login', '/logout', '/oauth/authorize', '/device', '/oauth/end-session']) {
    const res = await request(app)
      .post(path)
      .type('form')
      .send(`email=${'x'.repeat(110_000)}`)
      .expect(413);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Form too large');
  }
});

it('counts every one of 20 concurrent PATCHes of one user in __v, and loses none of their fields', async () => {
  const user = await createUser();
  const fields = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? { firstName: `first-${i}` } : { lastName: `last-${i}` }));
  const statuses = await Promise.all(
    fields.map((body) =>
      request(app)
        .patch(`/users/${user.id}`)
        .send(body)
        .then((res) => res.status),
    ),
  );
  expect(statuses).toEqual(Array(20).fill(204));
  const read = await request(app).get(`/users/${user.id}`).expect(200);
  expect(read.body.__v).toBe(20);
  expect(await mongoose.connection.collection('record_locks').countDocuments()).toBe(0);
});

it('stores no session for anonymous views of the sign-in page', async () => {
  await SessionModel.deleteMany({});
  for (let i = 0; i < 50; i += 1) {
    const res = await request(app).get('/login').expect(200);
    expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).some((cookie) => cookie.startsWith('sid='))).toBe(false);
  }
  expect(await SessionModel.countDocuments()).toBe(0);
});
