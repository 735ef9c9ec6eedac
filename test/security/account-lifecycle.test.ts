// Deleting a user, or changing their password, ends everything issued to them: OAuth access and
// refresh tokens, seed 000 refresh grants, browser sessions (remember-me ones too). And look-alike
// emails (NFKC forms, invisible characters, mixed scripts) never make a second account.
import request from 'supertest';
import { SessionModel } from '../../src/session/session.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { clientSecretPost, basicAuth, csrfFrom, passwordGrant } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

/** A user holding one of everything: an OAuth token pair, a seed 000 pair and a remember-me session. */
async function everythingIssued() {
  const { client, user, tokens } = await passwordGrant(app);
  const seedPair = (await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201)).body;
  const browser = request.agent(app);
  const page = await browser.get('/login');
  await browser
    .post('/login')
    .type('form')
    .send({ _csrf: csrfFrom(page.text), email: user.email, password: user.password, remember: '1' })
    .expect(303);
  await browser.get('/home').expect(200);
  return { client, user, tokens, seedPair, browser };
}

async function expectAllEnded({ client, user, tokens, seedPair, browser }: Awaited<ReturnType<typeof everythingIssued>>) {
  const refreshed = await request(app)
    .post('/oauth/token')
    .type('form')
    .send({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      ...clientSecretPost(client),
    });
  expect(refreshed.status).toBe(400);
  expect(refreshed.body.error).toBe('invalid_grant');
  for (const token of [tokens.access_token, tokens.refresh_token]) {
    const introspection = await request(app)
      .post('/oauth/introspect')
      .set('Authorization', basicAuth(client.client_id, client.client_secret))
      .type('form')
      .send({ token });
    expect(introspection.body).toEqual({ active: false });
  }
  await request(app).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`).expect(401);
  await request(app)
    .post('/auth/refresh-token')
    .set('Authorization', `Bearer ${seedPair.accessToken}`)
    .send({ refreshToken: seedPair.refreshToken })
    .expect(400);
  await browser.get('/home').expect(302).expect('Location', '/login');
  expect(await SessionModel.countDocuments({ userId: user.id })).toBe(0);
}

it('ends every token, grant and session of a deleted user', async () => {
  const issued = await everythingIssued();
  await request(app).delete(`/users/${issued.user.id}`).expect(204);
  await expectAllEnded(issued);
});

it.each(['patch', 'put'] as const)('ends every token, grant and session when a %s changes the password', async (method) => {
  const issued = await everythingIssued();
  const body = { email: issued.user.email, password: 'a-brand-new-password', firstName: 'New', lastName: 'Password', permissionFlags: 1 };
  await request(app)
    [method](`/users/${issued.user.id}`)
    .send(method === 'patch' ? { password: body.password } : body)
    .expect(204);
  await expectAllEnded(issued);
  // The new password works.
  await request(app).post('/auth').send({ email: issued.user.email, password: 'a-brand-new-password' }).expect(201);
});

it('keeps tokens and sessions when an update leaves the password alone', async () => {
  const { user, tokens, browser } = await everythingIssued();
  await request(app).patch(`/users/${user.id}`).send({ firstName: 'Renamed' }).expect(204);
  await request(app).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
  await browser.get('/home').expect(200);
});

describe('look-alike emails', () => {
  it('folds fullwidth letters (NFKC) and case into the stored account', async () => {
    await request(app).post('/users').send({ email: 'ann.lookalike@example.com', password: 'secret1' }).expect(201);
    const twin = await request(app).post('/users').send({ email: 'ＡＮＮ.lookalike@ｅxample.com', password: 'secret1' }).expect(400);
    expect(twin.body).toEqual({ error: 'User email already exists' });
    await request(app).post('/auth').send({ email: 'ａnn.lookalike@example.com', password: 'secret1' }).expect(201);
  });

  it.each([
    ['a zero-width space', 'ann\u200b.zw@example.com', 'invisible'],
    ['a right-to-left override', 'ann\u202e.rtl@example.com', 'invisible'],
    ['a control character', 'ann\u0007.bell@example.com', 'invisible'],
    ['a Cyrillic е among Latin letters', 'ann.t\u0435st@example.com', 'scripts'],
    ['a Cyrillic а in the domain', 'ann@ex\u0430mple.com', 'scripts'],
  ])('refuses an email with %s', async (_name, email, word) => {
    const res = await request(app).post('/users').send({ email, password: 'secret1' }).expect(400);
    expect(res.body.errors[0]).toMatchObject({ path: 'email', msg: expect.stringContaining(word) });
  });

  it('accepts an address written in one script', async () => {
    await request(app).post('/users').send({ email: 'иван@почта.рф', password: 'secret1' }).expect(201);
  });
});
