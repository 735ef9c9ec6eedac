// Deleting a user, or changing their password, ends everything issued to them: OAuth access and
// refresh tokens, seed 000 refresh grants, browser sessions (remember-me ones too). And look-alike
// emails (NFKC forms, invisible characters, mixed scripts) never make a second account.
import request from 'supertest';
import { SessionModel } from '../../src/session/session.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { grantAdmin } from '../../src/users/users.service';
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
  // The seed 000 access token itself no longer counts anywhere (403), so it cannot even ask.
  await request(app)
    .post('/auth/refresh-token')
    .set('Authorization', `Bearer ${seedPair.accessToken}`)
    .send({ refreshToken: seedPair.refreshToken })
    .expect(403);
  await request(app).get('/oauth/grants').set('Authorization', `Bearer ${seedPair.accessToken}`).expect(403);
  await request(app).get('/oauth/clients').set('Authorization', `Bearer ${seedPair.accessToken}`).expect(403);
  const registration = await request(app)
    .post('/oauth/register')
    .set('Authorization', `Bearer ${seedPair.accessToken}`)
    .send({ redirect_uris: ['https://stolen.example.com/cb'] });
  expect(registration.status).toBe(401);
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

describe('USERS_API_AUTH=jwt: a stolen access token cannot take the account', () => {
  const guarded = testApp({ USERS_API_AUTH: 'jwt' });
  async function signedIn() {
    const { user } = await passwordGrant(guarded);
    const { accessToken } = (await request(guarded).post('/auth').send({ email: user.email, password: user.password }).expect(201)).body;
    return { user, bearer: `Bearer ${accessToken as string}` };
  }

  it("asks for the current password to change one's own, and refuses a wrong or missing one, changing nothing", async () => {
    const { user, bearer } = await signedIn();
    const change = (body: Record<string, string>) => request(guarded).patch(`/users/${user.id}`).set('Authorization', bearer).send(body);
    expect((await change({ password: 'attacker-password' }).expect(400)).body).toEqual({ error: 'Invalid current password' });
    await change({ password: 'attacker-password', currentPassword: 'a-guess' }).expect(400);
    await request(guarded).post('/auth').send({ email: user.email, password: 'attacker-password' }).expect(400);
    await change({ password: 'owner-new-password', currentPassword: user.password }).expect(204);
    await request(guarded).post('/auth').send({ email: user.email, password: 'owner-new-password' }).expect(201);
    // The token the change was made with was issued under the old password: it has ended too.
    await request(guarded).get(`/users/${user.id}`).set('Authorization', bearer).expect(403);
  });

  it("lets an admin reset another person's password without knowing it", async () => {
    const { user } = await signedIn();
    const admin = await createUser();
    await grantAdmin(admin.email);
    const { accessToken } = (await request(guarded).post('/auth').send({ email: admin.email, password: admin.password }).expect(201)).body;
    await request(guarded)
      .patch(`/users/${user.id}`)
      .set('Authorization', `Bearer ${accessToken as string}`)
      .send({ password: 'reset-by-admin' })
      .expect(204);
    await request(guarded).post('/auth').send({ email: user.email, password: 'reset-by-admin' }).expect(201);
  });

  it('ends a token on every route once the owner changes the password elsewhere', async () => {
    const { user, bearer } = await signedIn();
    await request(guarded).get(`/users/${user.id}`).set('Authorization', bearer).expect(200);
    const other = (await request(guarded).post('/auth').send({ email: user.email, password: user.password }).expect(201)).body;
    await request(guarded)
      .patch(`/users/${user.id}`)
      .set('Authorization', `Bearer ${other.accessToken as string}`)
      .send({ password: 'owner-reacts', currentPassword: user.password })
      .expect(204);
    await request(guarded).get(`/users/${user.id}`).set('Authorization', bearer).expect(403);
    await request(guarded).patch(`/users/${user.id}`).set('Authorization', bearer).send({ password: 'attacker-password' }).expect(403);
  });
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
