// `npm run users -- list|show|unlock|verify|disable|enable|reset-factors <email>` as a real process, and what a
// disabled account can no longer do: sign in by password, Basic, the password grant or a session,
// nor use any token issued before.
import mongoose from 'mongoose';
import request from 'supertest';
import { UserModel } from '../../src/users/users.model';
import { RecoveryCodeModel } from '../../src/factors/recovery-codes.model';
import { TotpModel } from '../../src/factors/totp.model';
import { enrolTotp, passwordStep } from '../helpers/factors';
import { testApp } from '../helpers/app';
import { runCommand } from '../helpers/commands';
import { testDatabaseUriWithName, useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { basicAuth, clientSecretPost, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();
const users = (args: string[]) =>
  runCommand('users', args, { MONGODB_URI: testDatabaseUriWithName(mongoose.connection.name), LOG_LEVEL: 'silent' });

const passwordGrant = (client: { client_id: string; client_secret: string }, user: { email: string; password: string }) =>
  request(app)
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: 'password', ...clientSecretPost(client), username: user.email, password: user.password, scope: 'openid' });

describe('npm run users', () => {
  it('lists, shows and verifies accounts', async () => {
    const user = await createUser();
    const shown = await users(['show', user.email.toUpperCase()]);
    expect(shown.stdout).toContain(`${user.email}  uid `);
    expect(shown.stdout).toContain('unverified, active');
    expect((await users(['list'])).stdout).toContain(user.email);
    expect((await users(['verify', user.email])).stdout).toContain(`${user.email} is verified`);
    expect((await UserModel.findById(user.id).lean())?.emailVerified).toBe(true);
    expect((await users(['show', user.email])).stdout).toContain('verified, active');
    expect((await users(['unlock', user.email])).stdout).toContain(`${user.email} had no failed sign-ins to forget`);
  }, 30_000);

  it('removes an account’s second factors with reset-factors: its owner signs in with the password alone', async () => {
    const user = await createUser();
    await enrolTotp((await signedInAgent(app, user)).agent);
    expect((await passwordStep(app, user)).res.headers.location).toBe('/login/verify');
    expect((await users(['reset-factors', user.email])).stdout).toContain(`${user.email}: removed authenticator app`);
    expect(await TotpModel.findById(user.id).lean()).toBeNull();
    expect(await RecoveryCodeModel.countDocuments({ userId: user.id })).toBe(0);
    expect((await passwordStep(app, user)).res.headers.location).toBe('/home');
    expect((await users(['reset-factors', user.email])).stdout).toContain('had no second factor');
  }, 30_000);

  it('says which email it does not know, and shows its usage for a wrong command, exiting 1', async () => {
    await expect(users(['show', 'nobody@example.com'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no user has the email'),
    });
    await expect(users(['delete', 'nobody@example.com'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('usage: npm run users'),
    });
    await expect(users(['list', 'x'])).rejects.toMatchObject({ code: 1 });
  }, 30_000);

  it('disables an account everywhere and ends what was issued to it; enable lets it sign in again', async () => {
    const user = await createUser();
    const { agent } = await signedInAgent(app, user);
    const jwt = (await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201)).body as {
      accessToken: string;
    };
    const client = await registerClient({ grants: ['password', 'refresh_token'] });
    const tokens = (await passwordGrant(client, user).expect(200)).body as { access_token: string };
    await request(app).get('/api/v1/products').set('Authorization', basicAuth(user.email, user.password)).expect(200);

    expect((await users(['disable', user.email])).stdout).toContain('is disabled');

    expect((await agent.get('/home')).status).toBe(302);
    await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(400);
    await request(app)
      .post('/auth/refresh-token')
      .set('Authorization', `Bearer ${jwt.accessToken}`)
      .send({ refreshToken: 'x' })
      .expect(403);
    expect((await passwordGrant(client, user)).body).toMatchObject({ error: 'invalid_grant' });
    await request(app).get('/oauth/userinfo').set('Authorization', `Bearer ${tokens.access_token}`).expect(401);
    await request(app).get('/api/v1/products').set('Authorization', basicAuth(user.email, user.password)).expect(401);
    const login = await signedInAgent(app, user).catch((err: unknown) => err);
    expect(login).toBeInstanceOf(Error);

    expect((await users(['enable', user.email])).stdout).toContain('is enabled');
    await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
    await signedInAgent(app, user);
  }, 60_000);
});
