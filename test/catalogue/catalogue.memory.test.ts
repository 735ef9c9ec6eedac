// The catalogue served from memory: ETag and 304, a load in this process seen at once, and a load by
// another process (which increases the version document) seen within a second.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { ProductModel } from '../../src/catalogue/catalogue.model';
import { ChangeSignal } from '../../src/db/change-signals';
import { loadCatalogue } from '../../src/catalogue/catalogue.service';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';

useTestDatabase();
const app = testApp();
let auth: string;
let folder: string;

const productName = async (id: string) =>
  (await request(app).get(`/api/v1/products/${id}`).set('Authorization', auth).expect(200)).body.products.name as string;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  await loadCatalogue();
  const user = await createUser();
  auth = `Basic ${Buffer.from(`${user.email}:${user.password}`).toString('base64')}`;
  folder = await mkdtemp(path.join(tmpdir(), 'catalogue-'));
});

afterAll(() => rm(folder, { recursive: true, force: true }));

describe('the catalogue in memory', () => {
  it('answers 304 to a matching If-None-Match, and still asks for credentials first', async () => {
    const first = await request(app).get('/api/v1/products').set('Authorization', auth).expect(200);
    expect(first.headers.etag).toMatch(/^W\/"[^"]+"$/);
    const again = await request(app)
      .get('/api/v1/products')
      .set('Authorization', auth)
      .set('If-None-Match', first.headers.etag)
      .expect(304);
    expect(again.text).toBe('');
    await request(app).get('/api/v1/products').set('If-None-Match', first.headers.etag).expect(401);
    const category = await request(app).get('/api/v1/categories/1').set('Authorization', auth).expect(200);
    await request(app).get('/api/v1/categories/1').set('Authorization', auth).set('If-None-Match', category.headers.etag).expect(304);
  });

  it('does not read the products per request: a change written behind its back shows only once a load raises the signal', async () => {
    const before = await productName('1');
    // Written directly, as no loader would: nothing is raised, so the copy in memory stays.
    await ProductModel.updateOne({ _id: '1' }, { $set: { name: 'Changed in the database only' } });
    await delay(1100);
    expect(await productName('1')).toBe(before);

    // Another process's load ends by raising the signal; this one reloads within a second.
    await new ChangeSignal('catalogue').raise();
    await delay(1100);
    expect(await productName('1')).toBe('Changed in the database only');
  });

  it("shows this process's own load at once, with a new ETag", async () => {
    const etag = (await request(app).get('/api/v1/products').set('Authorization', auth).expect(200)).headers.etag;
    const file = path.join(folder, 'catalogue.json');
    await writeFile(
      file,
      JSON.stringify({ categories: [{ id: '1', name: 'Coffee' }], products: [{ id: '1', name: 'Renamed at once', price: '9.99' }] }),
    );
    await loadCatalogue(file);
    expect(await productName('1')).toBe('Renamed at once');
    const after = await request(app).get('/api/v1/products').set('Authorization', auth).set('If-None-Match', etag).expect(200);
    expect(after.headers.etag).not.toBe(etag);
  });
});
