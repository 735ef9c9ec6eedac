import { readFileSync } from 'node:fs';
import request from 'supertest';
import { CategoryModel, ProductModel } from '../../src/catalogue/catalogue.model';
import { loadCatalogue, SAMPLE_CATALOGUE_FILE } from '../../src/catalogue/catalogue.service';
import { hashPassword } from '../../src/common/passwords';
import { ChangeSignal } from '../../src/db/change-signals';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { msUntilFalse } from '../helpers/polling';

useTestDatabase();
const app = testApp();
const sample = JSON.parse(readFileSync(SAMPLE_CATALOGUE_FILE, 'utf8')) as {
  categories: { id: string; name: string }[];
  products: { id: string; name: string; price: string }[];
};

const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
let auth: string;

beforeAll(async () => {
  await loadCatalogue();
  const user = await createUser();
  auth = basic(user.email, user.password);
});

function expectUnauthorized(res: request.Response, message: string) {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe('Basic realm="catalogue"');
  expect(res.body).toEqual({ error: true, message, status_code: 401 });
}

describe('GET /api/v1/products', () => {
  it('returns every product in the envelope, in file order, with id, name and price as strings', async () => {
    const res = await request(app).get('/api/v1/products').set('Authorization', auth).expect(200);
    expect(res.body).toEqual({ error: false, products: sample.products, status_code: 200 });
    for (const product of res.body.products) {
      expect(Object.keys(product)).toEqual(['id', 'name', 'price']);
      expect(typeof product.id).toBe('string');
      expect(product.price).toMatch(/^\d+\.\d{2}$/);
    }
  });

  it('returns one product as an object under `products`', async () => {
    const res = await request(app).get('/api/v1/products/2').set('Authorization', auth).expect(200);
    expect(res.body).toEqual({ error: false, products: { id: '2', name: sample.products[1].name, price: '12.50' }, status_code: 200 });
  });

  it('answers 404 in the envelope for an unknown product', async () => {
    const res = await request(app).get('/api/v1/products/999').set('Authorization', auth).expect(404);
    expect(res.body).toEqual({ error: true, message: 'Product 999 not found', status_code: 404 });
  });
});

describe('GET /api/v1/categories', () => {
  it('returns every category under the key `user`', async () => {
    const res = await request(app).get('/api/v1/categories').set('Authorization', auth).expect(200);
    expect(res.body).toEqual({ error: false, user: sample.categories, status_code: 200 });
  });

  it('returns one category as an object under `user`', async () => {
    const res = await request(app).get('/api/v1/categories/3').set('Authorization', auth).expect(200);
    expect(res.body).toEqual({ error: false, user: { id: '3', name: 'Brewing equipment' }, status_code: 200 });
  });

  it('answers 404 in the envelope for an unknown category', async () => {
    const res = await request(app).get('/api/v1/categories/nope').set('Authorization', auth).expect(404);
    expect(res.body).toEqual({ error: true, message: 'Category nope not found', status_code: 404 });
  });
});

describe('odd ids', () => {
  it.each(['$gt', '%24ne', '..%2F..%2Fusers', '%7B%22%24gt%22%3A%22%22%7D', 'x'.repeat(3000), '%00'])(
    'answers 404 for the product id %s',
    async (id) => {
      const res = await request(app).get(`/api/v1/products/${id}`).set('Authorization', auth).expect(404);
      expect(res.body).toMatchObject({ error: true, status_code: 404 });
    },
  );
});

describe('HTTP Basic authentication', () => {
  it.each(['/api/v1/products', '/api/v1/products/1', '/api/v1/categories', '/api/v1/categories/1'])(
    'answers 401 with a Basic challenge on %s without credentials',
    async (path) => {
      expectUnauthorized(await request(app).get(path), 'Authentication required');
    },
  );

  it('answers 401 for a wrong password and for an unknown email alike', async () => {
    const user = await createUser();
    expectUnauthorized(
      await request(app).get('/api/v1/products').set('Authorization', basic(user.email, 'wrong-password')),
      'Invalid email or password',
    );
    expectUnauthorized(
      await request(app).get('/api/v1/products').set('Authorization', basic('nobody@example.com', user.password)),
      'Invalid email or password',
    );
  });

  it('accepts the email in another case', async () => {
    const user = await createUser();
    await request(app).get('/api/v1/products').set('Authorization', basic(user.email.toUpperCase(), user.password)).expect(200);
  });

  it('accepts a password that contains colons', async () => {
    const user = await createUser({ password: 'pa:ss:word' });
    await request(app).get('/api/v1/products').set('Authorization', basic(user.email, 'pa:ss:word')).expect(200);
  });

  const encode = (text: string) => Buffer.from(text).toString('base64');
  it.each([
    ['no colon', `Basic ${encode('user-without-colon')}`],
    ['an empty email', `Basic ${encode(':password')}`],
    ['an empty password', `Basic ${encode('a@example.com:')}`],
    ['bad base64', 'Basic %%%not-base64%%%'],
    ['no credentials after the scheme', 'Basic'],
    ['extra parts', `Basic ${encode('a@example.com:pw')} extra`],
    ['another scheme', 'Digest username="a@example.com"'],
    ['a huge value', `Basic ${'A'.repeat(8000)}`],
  ])('answers 401, never 500, for a header with %s', async (_case, header) => {
    expectUnauthorized(await request(app).get('/api/v1/products').set('Authorization', header), 'Authentication required');
  });

  it('stops accepting the old password at once after a password change, and the new one works', async () => {
    const user = await createUser();
    await request(app).get('/api/v1/products').set('Authorization', basic(user.email, user.password)).expect(200);
    await request(app).patch(`/users/${user.id}`).send({ password: 'changed-password' }).expect(204);
    await request(app).get('/api/v1/products').set('Authorization', basic(user.email, user.password)).expect(401);
    await request(app).get('/api/v1/products').set('Authorization', basic(user.email, 'changed-password')).expect(200);
  });

  it('stops accepting a deleted user at once', async () => {
    const user = await createUser();
    await request(app).get('/api/v1/products').set('Authorization', basic(user.email, user.password)).expect(200);
    await request(app).delete(`/users/${user.id}`).expect(204);
    await request(app).get('/api/v1/products').set('Authorization', basic(user.email, user.password)).expect(401);
  });

  it('does not read the stored hash for credentials it verified recently, until the credentials signal moves', async () => {
    const user = await createUser();
    const get = () => request(app).get('/api/v1/products').set('Authorization', basic(user.email, user.password));
    // Twice: a verification is not kept when a change was signalled while it ran (an earlier test's
    // password change may still be reaching this process's view of the signal).
    await get().expect(200);
    await get().expect(200);
    // Changed behind the server's back: nothing raises the signal, so the cached verification stands.
    await UserModel.updateOne({ _id: user.id }, { $set: { password: await hashPassword('set-elsewhere') } });
    await get().expect(200);
    // Another instance raising the signal (as its password change would) reaches this one within a second.
    await new ChangeSignal('credentials').raise();
    expect(await msUntilFalse(async () => (await get()).status === 200)).toBeLessThanOrEqual(1100);
    await get().expect(401);
  });

  it('works the same with the credential cache turned off', async () => {
    const uncached = testApp({ CREDENTIAL_CACHE: 'off' });
    await request(uncached).get('/api/v1/products').set('Authorization', auth).expect(200);
    await request(uncached).get('/api/v1/products').set('Authorization', auth).expect(200);
    await request(uncached).get('/api/v1/products').expect(401);
  });
});

describe('writes', () => {
  it.each(['post', 'put', 'patch', 'delete'] as const)('answers 405 to %s and changes nothing', async (method) => {
    const before = await ProductModel.findById('1').lean();
    for (const path of ['/api/v1/products', '/api/v1/products/1', '/api/v1/categories', '/api/v1/categories/1']) {
      const res = await request(app)[method](path).set('Authorization', auth).send({ name: 'Changed', price: '0.01' });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.body).toEqual({ error: true, message: 'The catalogue is read-only', status_code: 405 });
    }
    expect(await ProductModel.findById('1').lean()).toEqual(before);
    expect(await ProductModel.countDocuments()).toBe(sample.products.length);
    expect(await CategoryModel.countDocuments()).toBe(sample.categories.length);
  });
});
