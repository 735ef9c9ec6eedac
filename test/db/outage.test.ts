// Stops the database under a running app and starts it again: requests fail fast with 503 while it
// is down, and the app recovers by itself when it returns. Uses a database server of its own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded';
import { connectDatabase, disconnectDatabase } from '../../src/db/mongoose';
import { testApp } from '../helpers/app';
import { createUser } from '../helpers/factories';

const app = testApp();
let database: EmbeddedDatabase;
let dataDir: string;

const startDatabase = (port?: number) => startEmbeddedDatabase({ ...engineSettings(), dataDir, port, log: () => undefined });

function engineSettings() {
  const { embeddedEngine, toolCacheDir } = loadConfig(process.env);
  return { engine: embeddedEngine, cacheDir: toolCacheDir };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'rest-api-outage-'));
  database = await startDatabase();
  await connectDatabase(database.uri, 'outage');
}, 120_000);

afterAll(async () => {
  await disconnectDatabase();
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
});

it('answers 503 within about a second while the database is down, and recovers when it returns', async () => {
  const user = await createUser();
  await request(app).get(`/users/${user.id}`).expect(200);

  await database.stop();
  const started = Date.now();
  const down = await request(app).get(`/users/${user.id}`);
  expect(down.status).toBe(503);
  expect(down.body).toEqual({ error: 'Service temporarily unavailable' });
  expect(down.headers['retry-after']).toBe('1');
  expect(Date.now() - started).toBeLessThan(2000);
  await request(app).post('/users').send({ email: 'during-outage@example.com', password: 'secret1' }).expect(503);
  // The OAuth endpoints too, in their own format, with Retry-After.
  for (const path of ['/oauth/token', '/v1/oauth/token']) {
    const token = await request(app)
      .post(path)
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'c', client_secret: 's' });
    expect(token.status).toBe(503);
    expect(token.body.error).toBe('temporarily_unavailable');
    expect(token.headers['retry-after']).toBe('1');
  }
  const resource = await request(app).get('/api/user').set('Authorization', 'Bearer some-token');
  expect(resource.status).toBe(503);
  expect(resource.headers['retry-after']).toBe('1');
  // The sign-in page needs no database and hands out no session cookie.
  const login = await request(app).get('/login').expect(200);
  expect(([] as string[]).concat(login.headers['set-cookie'] ?? []).some((cookie) => cookie.startsWith('sid='))).toBe(false);
  const readiness = await request(app).get('/readyz').expect(503);
  expect(readiness.body).toEqual({ status: 'database unavailable' });
  await request(app).get('/healthz').expect(200);

  database = await startDatabase('port' in database.address ? database.address.port : undefined);
  const deadline = Date.now() + 20_000;
  let status = 0;
  while (Date.now() < deadline && status !== 200) {
    status = (await request(app).get(`/users/${user.id}`)).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(status).toBe(200);
  // The write refused during the outage left nothing behind.
  await request(app).post('/auth').send({ email: 'during-outage@example.com', password: 'secret1' }).expect(400);
}, 60_000);
