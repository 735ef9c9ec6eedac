import request from 'supertest';
import { UserModel } from '../../src/users/users.model';
import { hashPassword } from '../../src/common/passwords';
import { testApp } from '../helpers/app';
import { clearCollections, useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';

useTestDatabase();
const app = testApp();

describe('GET /users/:userId', () => {
  it('returns exactly the seed fields: _id, email, permissionFlags, __v, firstName and lastName', async () => {
    const user = await createUser();
    const res = await request(app)
      .get(`/users/${user.id}`)
      .expect(200)
      .expect('Content-Type', /application\/json/);
    expect(res.body).toEqual({
      _id: user.id,
      email: user.email,
      permissionFlags: 1,
      __v: 0,
      firstName: user.firstName,
      lastName: user.lastName,
    });
  });

  it('leaves out firstName and lastName when they are not set', async () => {
    const user = await createUser({ firstName: undefined, lastName: undefined });
    const res = await request(app).get(`/users/${user.id}`).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['__v', '_id', 'email', 'permissionFlags']);
  });

  it('answers 404 "User <userId> not found" for an unknown id', async () => {
    const res = await request(app).get('/users/unknown123').expect(404);
    expect(res.body).toEqual({ error: 'User unknown123 not found' });
  });

  it.each(['$gt', '..', '%7B%22%24ne%22%3Anull%7D', 'a'.repeat(500)])('answers 404 for the odd id %s', async (id) => {
    await request(app).get(`/users/${id}`).expect(404);
  });

  it('answers 400, not 500, for a path whose percent-encoding does not decode', async () => {
    const res = await request(app).get('/users/%E0%A4%A').expect(400);
    expect(res.body).toEqual({ error: 'Malformed request' });
  });
});

describe('GET /users', () => {
  beforeEach(clearCollections);

  it('returns every user in creation order without password or uid', async () => {
    const created = [await createUser(), await createUser(), await createUser()];
    const res = await request(app).get('/users').expect(200);
    expect(res.body.map((user: { _id: string }) => user._id)).toEqual(created.map((user) => user.id));
    for (const user of res.body) {
      expect(Object.keys(user).sort()).toEqual(['__v', '_id', 'email', 'firstName', 'lastName', 'permissionFlags']);
    }
  });

  it('returns an empty array when there are no users', async () => {
    const res = await request(app).get('/users').expect(200);
    expect(res.body).toEqual([]);
  });

  describe('with more than 100 users', () => {
    beforeEach(async () => {
      // Inserted directly with one shared hash: hashing 105 passwords would only slow the test.
      const password = await hashPassword('shared-password');
      await UserModel.insertMany(
        Array.from({ length: 105 }, (_, i) => ({ uid: i + 1, email: `bulk-${i}@example.com`, password, permissionFlags: 1 })),
      );
    });

    it('returns the first 100 users by default', async () => {
      const res = await request(app).get('/users').expect(200);
      expect(res.body).toHaveLength(100);
      expect(res.body[0].email).toBe('bulk-0@example.com');
      expect(res.body[99].email).toBe('bulk-99@example.com');
    });

    it('pages through the rest with limit and a 0-based page', async () => {
      const res = await request(app).get('/users?limit=100&page=1').expect(200);
      expect(res.body.map((user: { email: string }) => user.email)).toEqual([100, 101, 102, 103, 104].map((i) => `bulk-${i}@example.com`));
      const small = await request(app).get('/users?limit=2&page=3').expect(200);
      expect(small.body.map((user: { email: string }) => user.email)).toEqual(['bulk-6@example.com', 'bulk-7@example.com']);
    });
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=-1', 'page=-1', 'page=x', 'limit=2&limit=3'])(
    'answers 400 for the query %s',
    async (queryString) => {
      const res = await request(app).get(`/users?${queryString}`).expect(400);
      expect(res.body.errors[0]).toMatchObject({ type: 'field', location: 'query' });
    },
  );
});
