import request from 'supertest';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';

useTestDatabase();
const app = testApp();

const stored = (id: string) => UserModel.findById(id).select('+password').lean();

function fullBody(user: { email: string }) {
  return { email: user.email, password: 'new-password', firstName: 'New', lastName: 'Name', permissionFlags: 7 };
}

describe('PUT /users/:userId', () => {
  it('returns 204 with an empty body, replaces the fields, rehashes the password and bumps __v', async () => {
    const user = await createUser();
    const before = await stored(user.id);
    const res = await request(app).put(`/users/${user.id}`).send(fullBody(user)).expect(204);
    expect(res.text).toBe('');

    const after = await stored(user.id);
    expect(after).toMatchObject({ email: user.email, firstName: 'New', lastName: 'Name', permissionFlags: 7, __v: 1 });
    expect(after!.password).toMatch(/^\$argon2id\$/);
    expect(after!.password).not.toBe(before!.password);
    expect(after!.uid).toBe(before!.uid);
  });

  it('bumps __v on every PUT, even when nothing changes', async () => {
    const user = await createUser();
    await request(app).put(`/users/${user.id}`).send(fullBody(user)).expect(204);
    await request(app).put(`/users/${user.id}`).send(fullBody(user)).expect(204);
    const res = await request(app).get(`/users/${user.id}`).expect(200);
    expect(res.body.__v).toBe(2);
  });

  it('returns 404 before validating the body', async () => {
    const res = await request(app).put('/users/doesnotexist').send({ password: '1' }).expect(404);
    expect(res.body).toEqual({ error: 'User doesnotexist not found' });
  });

  it('requires every field and names each missing one', async () => {
    const user = await createUser();
    const res = await request(app).put(`/users/${user.id}`).send({}).expect(400);
    expect(res.body.errors.map((item: { path: string }) => item.path).sort()).toEqual(
      ['email', 'firstName', 'lastName', 'password', 'permissionFlags'].sort(),
    );
    expect(res.body.errors.find((item: { path: string }) => item.path === 'password').msg).toBe('Must include password (5+ characters)');
    expect((await stored(user.id))!.__v).toBe(0);
  });

  it('answers 400 "Invalid email" when the email belongs to someone else, changing nothing', async () => {
    const user = await createUser();
    const other = await createUser();
    const res = await request(app).put(`/users/${user.id}`).send(fullBody(other)).expect(400);
    expect(res.body).toEqual({ error: 'Invalid email' });
    expect(await stored(user.id)).toMatchObject({ email: user.email, firstName: user.firstName, __v: 0 });
  });

  it('answers 400 "Invalid email" for an unused address too: the email cannot change', async () => {
    const user = await createUser();
    const res = await request(app)
      .put(`/users/${user.id}`)
      .send({ ...fullBody(user), email: 'fresh-address@example.com' })
      .expect(400);
    expect(res.body).toEqual({ error: 'Invalid email' });
  });

  it('accepts the user own email in another case', async () => {
    const user = await createUser();
    await request(app)
      .put(`/users/${user.id}`)
      .send({ ...fullBody(user), email: user.email.toUpperCase() })
      .expect(204);
  });

  it.each([
    ['a string', '1'],
    ['a fraction', 1.5],
    ['a boolean', true],
    ['a negative number', -1],
    ['an operator object', { $gt: 0 }],
  ])('answers 400 when permissionFlags is %s', async (_case, permissionFlags) => {
    const user = await createUser();
    const res = await request(app)
      .put(`/users/${user.id}`)
      .send({ ...fullBody(user), permissionFlags })
      .expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'permissionFlags' })]);
    expect((await stored(user.id))!.permissionFlags).toBe(1);
  });
});

describe('PATCH /users/:userId', () => {
  it('returns 204, changes only the fields sent and bumps __v each time', async () => {
    const user = await createUser();
    await request(app).patch(`/users/${user.id}`).send({ lastName: 'Changed' }).expect(204);
    await request(app).patch(`/users/${user.id}`).send({ permissionFlags: 3 }).expect(204);
    const res = await request(app).get(`/users/${user.id}`).expect(200);
    expect(res.body).toEqual({
      _id: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: 'Changed',
      permissionFlags: 3,
      __v: 2,
    });
  });

  it('stores a new password only as a hash', async () => {
    const user = await createUser();
    await request(app).patch(`/users/${user.id}`).send({ password: 'another-password' }).expect(204);
    const after = await stored(user.id);
    expect(after!.password).toMatch(/^\$argon2id\$/);
    expect(after!.password).not.toContain('another-password');
  });

  it('uses the PATCH password message for a short password', async () => {
    const user = await createUser();
    const res = await request(app).patch(`/users/${user.id}`).send({ password: 'abc' }).expect(400);
    expect(res.body).toEqual({
      errors: [{ type: 'field', msg: 'Password must be 5+ characters', path: 'password', location: 'body' }],
    });
  });

  it('applies the email rule only when email is present', async () => {
    const user = await createUser();
    const other = await createUser();
    await request(app).patch(`/users/${user.id}`).send({ firstName: 'Only' }).expect(204);
    const res = await request(app).patch(`/users/${user.id}`).send({ email: other.email, firstName: 'Nope' }).expect(400);
    expect(res.body).toEqual({ error: 'Invalid email' });
    expect((await stored(user.id))!.firstName).toBe('Only');
    await request(app).patch(`/users/${user.id}`).send({ email: user.email }).expect(204);
  });

  it('returns 404 before validating the body', async () => {
    const res = await request(app).patch('/users/doesnotexist').send({ permissionFlags: 'x' }).expect(404);
    expect(res.body).toEqual({ error: 'User doesnotexist not found' });
  });

  it('ignores unknown and server-owned fields', async () => {
    const user = await createUser();
    const before = await stored(user.id);
    await request(app).patch(`/users/${user.id}`).send({ _id: 'other', uid: 1, isAdmin: true, __v: 99 }).expect(204);
    const after = await stored(user.id);
    expect(after).not.toHaveProperty('isAdmin');
    expect(after!.uid).toBe(before!.uid);
    expect(after!.__v).toBe(1);
  });

  it.each([
    ['firstName', 7],
    ['lastName', null],
    ['email', ['a@example.com']],
    ['permissionFlags', '2'],
  ])('answers 400 when %s has the wrong type, changing nothing', async (field, value) => {
    const user = await createUser();
    const res = await request(app)
      .patch(`/users/${user.id}`)
      .send({ [field]: value })
      .expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: field })]);
    expect((await stored(user.id))!.__v).toBe(0);
  });
});

describe('DELETE /users/:userId', () => {
  it('returns 204 with an empty body and removes the user', async () => {
    const user = await createUser();
    const res = await request(app).delete(`/users/${user.id}`).expect(204);
    expect(res.text).toBe('');
    expect(await UserModel.findById(user.id).lean()).toBeNull();
    await request(app).get(`/users/${user.id}`).expect(404);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await request(app).delete('/users/doesnotexist').expect(404);
    expect(res.body).toEqual({ error: 'User doesnotexist not found' });
  });
});
