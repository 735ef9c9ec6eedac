import argon2 from 'argon2';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ACCESS_TOKEN_LIFETIME_SECONDS } from '../../src/common/access-tokens';
import { configurePasswordHashing, OWASP_MINIMUM } from '../../src/common/passwords';
import { RefreshGrantModel } from '../../src/auth/refresh-grants.model';
import { UserModel } from '../../src/users/users.model';
import { TEST_JWT_SECRET, testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { TEST_HASHING } from '../helpers/fast-hashing';

useTestDatabase();
const app = testApp();

describe('POST /auth', () => {
  it('returns 201 with an HS256 access token carrying the seed claims and a 36000 s lifetime', async () => {
    const user = await createUser();
    const res = await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);

    expect(res.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    expect(res.headers['cache-control']).toBe('no-store');
    const decoded = jwt.verify(res.body.accessToken, TEST_JWT_SECRET, { algorithms: ['HS256'], complete: true });
    expect(decoded.header.alg).toBe('HS256');
    const claims = decoded.payload as jwt.JwtPayload;
    expect(claims).toMatchObject({ userId: user.id, email: user.email, permissionFlags: 1, refreshKey: expect.any(String) });
    expect(claims.exp! - claims.iat!).toBe(ACCESS_TOKEN_LIFETIME_SECONDS);
    expect(ACCESS_TOKEN_LIFETIME_SECONDS).toBe(36000);
  });

  it('stores only a hash of the refresh token, bound to the user and the refreshKey', async () => {
    const user = await createUser();
    const res = await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
    const { refreshKey } = jwt.decode(res.body.accessToken) as { refreshKey: string };
    const grant = await RefreshGrantModel.findById(refreshKey).lean();
    expect(grant).toMatchObject({ userId: user.id });
    expect(grant!.tokenHash).not.toBe(res.body.refreshToken);
    expect(JSON.stringify(grant)).not.toContain(res.body.refreshToken);
  });

  it('accepts the email in any case and with surrounding spaces', async () => {
    const user = await createUser();
    await request(app)
      .post('/auth')
      .send({ email: ` ${user.email.toUpperCase()} `, password: user.password })
      .expect(201);
  });

  it('answers the same 400 for a wrong password and an unknown email', async () => {
    const user = await createUser();
    const wrongPassword = await request(app).post('/auth').send({ email: user.email, password: 'wrong-password' }).expect(400);
    const unknownEmail = await request(app).post('/auth').send({ email: 'nobody@example.com', password: user.password }).expect(400);
    expect(wrongPassword.body).toEqual({ errors: ['Invalid email and/or password'] });
    expect(unknownEmail.body).toEqual(wrongPassword.body);
    expect(unknownEmail.headers['content-length']).toBe(wrongPassword.headers['content-length']);
  });

  it('spends a password verification on unknown emails too (timing is a ratio within one run)', async () => {
    // At production cost, so that the verification dominates the time of a request.
    configurePasswordHashing(OWASP_MINIMUM);
    try {
      await expectUnknownEmailsToTakeAsLong();
    } finally {
      configurePasswordHashing(TEST_HASHING);
    }
  });

  async function expectUnknownEmailsToTakeAsLong(): Promise<void> {
    const user = await createUser();
    const timeOf = async (email: string) => {
      const started = process.hrtime.bigint();
      await request(app).post('/auth').send({ email, password: 'wrong-password' }).expect(400);
      return Number(process.hrtime.bigint() - started);
    };
    // Taken in turns, so that a burst of load from other test files slows both sides alike.
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < 15; i += 1) {
      knownTimes.push(await timeOf(user.email));
      unknownTimes.push(await timeOf('nobody-at-all@example.com'));
    }
    const median = (times: number[]) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
    const known = median(knownTimes);
    const unknown = median(unknownTimes);
    // Without the dummy verification an unknown email answers several times faster.
    expect(unknown / known).toBeGreaterThan(0.6);
    expect(unknown / known).toBeLessThan(1.6);
  }

  it('refuses a user who has no password (signed up through a provider)', async () => {
    await UserModel.create({ uid: 900001, email: 'provider-only@example.com', permissionFlags: 1 });
    const res = await request(app).post('/auth').send({ email: 'provider-only@example.com', password: 'anything' }).expect(400);
    expect(res.body).toEqual({ errors: ['Invalid email and/or password'] });
  });

  it.each([
    ['a missing email', { password: 'whatever' }, 'email'],
    ['an invalid email', { email: 'nope', password: 'whatever' }, 'email'],
    ['an operator object as email', { email: { $ne: null }, password: 'whatever' }, 'email'],
    ['a missing password', { email: 'a@example.com' }, 'password'],
    ['a password that is not a string', { email: 'a@example.com', password: { $ne: null } }, 'password'],
    ['a password over 1024 characters', { email: 'a@example.com', password: 'p'.repeat(1025) }, 'password'],
  ])('answers 400 with validation items for %s', async (_case, body, path) => {
    const res = await request(app).post('/auth').send(body).expect(400);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'field', path })]));
    expect(JSON.stringify(res.body)).not.toContain('whatever');
  });

  it('upgrades a hash made with older argon2 parameters on a successful login', async () => {
    const user = await createUser();
    const oldHash = await argon2.hash(user.password, { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 });
    await UserModel.updateOne({ _id: user.id }, { $set: { password: oldHash } });

    await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
    const stored = await UserModel.findById(user.id).select('+password').lean();
    // The configured parameters (test/helpers/fast-hashing.ts), not the old ones.
    expect(stored!.password).toMatch(/^\$argon2id\$v=19\$m=1024,(p=1,t=1|t=1,p=1)\$/);
    expect(stored!.__v).toBe(0);
    await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
  });

  it('answers 500 with an empty body when the tokens cannot be stored', async () => {
    const user = await createUser();
    // A real database refusal: a unique index lets a user hold only one outstanding grant.
    await RefreshGrantModel.deleteMany({});
    await RefreshGrantModel.collection.createIndex({ userId: -1 }, { unique: true, name: 'one_grant_per_user' });
    try {
      await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
      const res = await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(500);
      expect(res.text).toBe('');
    } finally {
      await RefreshGrantModel.collection.dropIndex('one_grant_per_user');
    }
  });
});
