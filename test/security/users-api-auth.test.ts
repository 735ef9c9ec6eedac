// USERS_API_AUTH=jwt (docs/decisions.md, Users): POST /users stays open; the rest of /users needs the
// access token from POST /auth; own record only, people with the admin role for everyone's.
import mongoose from 'mongoose';
import request from 'supertest';
import { UserModel } from '../../src/users/users.model';
import { runCommand } from '../helpers/commands';
import { testApp } from '../helpers/app';
import { testDatabaseUriWithName, useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';

useTestDatabase();
const app = testApp({ USERS_API_AUTH: 'jwt' });

async function signIn(user: { email: string; password: string }): Promise<string> {
  const res = await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
  return `Bearer ${res.body.accessToken}`;
}

async function admin() {
  const user = await createUser();
  await UserModel.updateOne({ _id: user.id }, { $set: { roles: ['admin'] } });
  return { ...user, authorization: await signIn(user) };
}

describe('USERS_API_AUTH=jwt', () => {
  it('keeps POST /users open', async () => {
    await request(app).post('/users').send({ email: 'open-signup@example.com', password: 'secret1' }).expect(201);
  });

  it('answers 401 with an empty body without a Bearer header, and 403 for a bad token', async () => {
    const user = await createUser();
    for (const [method, status, authorization] of [
      ['get', 401, undefined],
      ['patch', 401, 'Basic abc'],
      ['delete', 403, 'Bearer not-a-jwt'],
    ] as const) {
      const req = request(app)[method](`/users/${user.id}`);
      const res = await (authorization ? req.set('Authorization', authorization) : req);
      expect(res.status).toBe(status);
      expect(res.text).toBe('');
    }
    await request(app).get('/users').expect(401);
  });

  it('lets a user read, update and delete their own record', async () => {
    const user = await createUser();
    const authorization = await signIn(user);
    const read = await request(app).get(`/users/${user.id}`).set('Authorization', authorization).expect(200);
    expect(read.body.email).toBe(user.email);
    await request(app).patch(`/users/${user.id}`).set('Authorization', authorization).send({ firstName: 'Own' }).expect(204);
    await request(app).delete(`/users/${user.id}`).set('Authorization', authorization).expect(204);
    expect(await UserModel.exists({ _id: user.id })).toBeNull();
  });

  it("answers 403 for another user's record whether it exists or not, and changes nothing", async () => {
    const [caller, other] = [await createUser(), await createUser()];
    const authorization = await signIn(caller);
    for (const id of [other.id, 'no-such-user']) {
      const res = await request(app).patch(`/users/${id}`).set('Authorization', authorization).send({ password: 'taken-over' }).expect(403);
      expect(res.text).toBe('');
      await request(app).get(`/users/${id}`).set('Authorization', authorization).expect(403);
      await request(app).delete(`/users/${id}`).set('Authorization', authorization).expect(403);
    }
    await request(app).post('/auth').send({ email: other.email, password: other.password }).expect(201);
    await request(app).get('/users').set('Authorization', authorization).expect(403);
  });

  it('refuses a non-admin change of permission flags with 400, and accepts the stored value', async () => {
    const user = await createUser();
    const authorization = await signIn(user);
    const res = await request(app).patch(`/users/${user.id}`).set('Authorization', authorization).send({ permissionFlags: 9 }).expect(400);
    expect(res.body).toEqual({ error: 'User cannot change permission flags' });
    await request(app)
      .put(`/users/${user.id}`)
      .set('Authorization', authorization)
      .send({ email: user.email, password: 'new-password', firstName: 'A', lastName: 'B', permissionFlags: 9 })
      .expect(400);
    expect((await UserModel.findById(user.id).lean())!.permissionFlags).toBe(1);
    await request(app)
      .patch(`/users/${user.id}`)
      .set('Authorization', authorization)
      .send({ permissionFlags: 1, firstName: 'Same' })
      .expect(204);
  });

  it('lets an admin list users and manage anyone, flags included; 404 for an unknown id', async () => {
    const boss = await admin();
    const user = await createUser();
    const list = await request(app).get('/users').set('Authorization', boss.authorization).expect(200);
    expect(list.body.map((u: { _id: string }) => u._id)).toEqual(expect.arrayContaining([boss.id, user.id]));
    await request(app).patch(`/users/${user.id}`).set('Authorization', boss.authorization).send({ permissionFlags: 9 }).expect(204);
    expect((await UserModel.findById(user.id).lean())!.permissionFlags).toBe(9);
    await request(app).get('/users/no-such-user').set('Authorization', boss.authorization).expect(404);
    await request(app).delete(`/users/${user.id}`).set('Authorization', boss.authorization).expect(204);
  });

  it("refuses a deleted user's still-unexpired token with 403", async () => {
    const user = await createUser();
    const authorization = await signIn(user);
    await UserModel.deleteOne({ _id: user.id });
    await request(app).get(`/users/${user.id}`).set('Authorization', authorization).expect(403);
  });
});

describe('the open mode (default)', () => {
  it("keeps seed 000's credential-free routes", async () => {
    const open = testApp();
    const user = await createUser();
    await request(open).get('/users').expect(200);
    await request(open).patch(`/users/${user.id}`).send({ firstName: 'Anyone' }).expect(204);
  });
});

describe('npm run make-admin', () => {
  it('gives a user the admin role, as a real process on the same database, and leaves the flags alone', async () => {
    const user = await createUser();
    const uri = testDatabaseUriWithName(mongoose.connection.db!.databaseName);
    const { stdout } = await runCommand('make-admin', [user.email.toUpperCase()], { MONGODB_URI: uri, LOG_LEVEL: 'silent' });
    expect(stdout).toContain('now has the admin role');
    expect(await UserModel.findById(user.id).lean()).toMatchObject({ roles: ['admin'], permissionFlags: 1 });
    const authorization = await signIn(user);
    await request(app).get('/users').set('Authorization', authorization).expect(200);
  }, 60_000);
});
