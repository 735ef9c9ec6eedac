import { trusted } from 'mongoose';
import request from 'supertest';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { buildUserInput, createUser } from '../helpers/factories';

useTestDatabase();
const app = testApp();

async function storedUser(email: string) {
  return UserModel.findOne({ email }).select('+password').lean();
}

describe('POST /users', () => {
  it('creates 80 users sent at once, each with a uid of its own', async () => {
    // From 80 addresses: one address may only queue a few password hashes at a time.
    const manyAddresses = testApp({ TRUST_PROXY: 'loopback' });
    const inputs = Array.from({ length: 80 }, () => buildUserInput());
    const responses = await Promise.all(
      inputs.map((input, i) =>
        request(manyAddresses)
          .post('/users')
          .set('X-Forwarded-For', `198.51.100.${i + 1}`)
          .send(input),
      ),
    );
    expect(responses.map((res) => res.status)).toEqual(inputs.map(() => 201));
    const stored = await UserModel.find({ email: trusted({ $in: inputs.map((input) => input.email) }) }, { uid: 1 }).lean();
    expect(stored).toHaveLength(80);
    expect(new Set(stored.map((user) => user.uid)).size).toBe(80);
  });

  it('returns 201 with the new id and stores a trimmed, lower-cased email and an argon2id hash', async () => {
    const input = buildUserInput();
    const res = await request(app)
      .post('/users')
      .send({ ...input, email: `  ${input.email.toUpperCase()} ` })
      .expect(201);

    expect(res.body).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]{7,14}$/) });
    const stored = await storedUser(input.email);
    expect(stored).toMatchObject({
      _id: res.body.id,
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      permissionFlags: 1,
      __v: 0,
    });
    expect(stored!.password).toMatch(/^\$argon2id\$/);
    expect(stored!.password).not.toContain(input.password);
  });

  it('forces permissionFlags to 1 and never stores unknown or server-owned fields', async () => {
    const input = buildUserInput();
    const res = await request(app)
      .post('/users')
      .send({ ...input, permissionFlags: 2147483647, isAdmin: true, _id: 'chosen-id', uid: 999999, __v: 50 })
      .expect(201);

    expect(res.body.id).not.toBe('chosen-id');
    const stored = await UserModel.findById(res.body.id).lean();
    expect(stored).not.toHaveProperty('isAdmin');
    expect(stored!.permissionFlags).toBe(1);
    expect(stored!.uid).not.toBe(999999);
    expect(stored!.__v).toBe(0);
  });

  it('gives every user a distinct positive integer uid in creation order', async () => {
    const first = await createUser();
    const second = await createUser();
    const [a, b] = await Promise.all([UserModel.findById(first.id).lean(), UserModel.findById(second.id).lean()]);
    expect(Number.isInteger(a!.uid)).toBe(true);
    expect(a!.uid).toBeGreaterThan(0);
    expect(b!.uid).toBeGreaterThan(a!.uid);
  });

  it('answers 400 "User email already exists" for a duplicate email in any case, storing nothing', async () => {
    const existing = await createUser();
    const res = await request(app)
      .post('/users')
      .send(buildUserInput({ email: existing.email.toUpperCase() }))
      .expect(400);
    expect(res.body).toEqual({ error: 'User email already exists' });
    expect(await UserModel.countDocuments({ email: existing.email })).toBe(1);
  });

  it('lets exactly one of two concurrent creations with the same email succeed', async () => {
    const input = buildUserInput();
    const statuses = (await Promise.all([1, 2, 3].map(() => request(app).post('/users').send(input)))).map((r) => r.status);
    expect(statuses.sort()).toEqual([201, 400, 400]);
    expect(await UserModel.countDocuments({ email: input.email })).toBe(1);
  });

  it.each([
    ['a missing email', { email: undefined }, 'email', 'Must include email'],
    ['an invalid email', { email: 'not-an-email' }, 'email', 'Must be a valid email address'],
    ['an email that is not a string', { email: 12345 }, 'email', 'Email must be a string'],
    ['an email over 254 characters', { email: `${'a'.repeat(250)}@example.com` }, 'email', 'Email must be at most 254 characters'],
    ['a missing password', { password: undefined }, 'password', 'Must include password (5+ characters)'],
    ['a password of 4 characters', { password: '1234' }, 'password', 'Must include password (5+ characters)'],
    ['a password that is a number', { password: 123456 }, 'password', 'Must include password (5+ characters)'],
    ['a password over 1024 characters', { password: 'p'.repeat(1025) }, 'password', 'Password must be at most 1024 characters'],
    ['a firstName that is not a string', { firstName: 42 }, 'firstName', 'firstName must be a string'],
    ['a lastName over 100 characters', { lastName: 'l'.repeat(101) }, 'lastName', 'lastName must be at most 100 characters'],
  ])('answers 400 with a validation item for %s and stores nothing', async (_case, change, path, msg) => {
    const input = { ...buildUserInput(), ...change };
    const before = await UserModel.countDocuments();
    const res = await request(app).post('/users').send(input).expect(400);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'field', path, msg, location: 'body' })]));
    expect(await UserModel.countDocuments()).toBe(before);
  });

  it('never echoes the password in a validation item', async () => {
    const res = await request(app).post('/users').send({ email: 'bad', password: 'abcd' }).expect(400);
    const passwordItem = res.body.errors.find((item: { path: string }) => item.path === 'password');
    expect(passwordItem).toEqual({ type: 'field', msg: 'Must include password (5+ characters)', path: 'password', location: 'body' });
    expect(JSON.stringify(res.body)).not.toContain('abcd');
  });

  it.each([
    ['email', { email: { $gt: '' } }],
    ['password', { password: { $ne: null } }],
    ['firstName', { firstName: { $where: 'sleep(1000)' } }],
  ])('rejects an operator object in %s with 400 and stores nothing', async (field, change) => {
    const before = await UserModel.countDocuments();
    const res = await request(app)
      .post('/users')
      .send({ ...buildUserInput(), ...change })
      .expect(400);
    expect(res.body.errors.map((item: { path: string }) => item.path)).toContain(field);
    expect(await UserModel.countDocuments()).toBe(before);
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await request(app).post('/users').set('Content-Type', 'application/json').send('{"email": ').expect(400);
    expect(res.body).toEqual({ errors: ['Malformed JSON in request body'] });
  });

  it('answers 413 for a body over 100 kB and stores nothing', async () => {
    const before = await UserModel.countDocuments();
    const res = await request(app)
      .post('/users')
      .send({ ...buildUserInput(), firstName: 'x'.repeat(101 * 1024) })
      .expect(413);
    expect(res.body).toEqual({ errors: ['Request body is larger than 100 kB'] });
    expect(await UserModel.countDocuments()).toBe(before);
  });

  it('answers 400 for a JSON body that is not an object', async () => {
    await request(app).post('/users').send([buildUserInput()]).expect(400);
    await request(app).post('/users').set('Content-Type', 'application/json').send('"text"').expect(400);
  });
});
