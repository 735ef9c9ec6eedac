import mongoose from 'mongoose';
import { start, type RunningServer } from '../src/server';
import { testConfig } from './helpers/app';
import { testDatabaseUriWithName } from './helpers/db';

describe('start()', () => {
  let server: RunningServer;
  const base = () => `http://127.0.0.1:${server.port}`;

  beforeAll(async () => {
    server = await start(testConfig({ PORT: '0', WEATHER_PORT: 'off', MONGODB_URI: testDatabaseUriWithName() }));
  });

  afterAll(async () => {
    await mongoose.connection.db?.dropDatabase().catch(() => undefined);
    await server.stop();
  });

  it('serves the app on the configured port with its database connected', async () => {
    const created = await fetch(`${base()}/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'server-test@example.com', password: 'server-pass' }),
    });
    expect(created.status).toBe(201);
    const listed = await fetch(`${base()}/users`);
    expect(await listed.json()).toEqual([expect.objectContaining({ email: 'server-test@example.com' })]);
  });

  it('answers 404 JSON for an unknown route', async () => {
    const res = await fetch(`${base()}/no/such/route`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Not found' });
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('finishes in-flight requests on stop, then refuses connections and closes the database', async () => {
    const inFlight = fetch(`${base()}/auth`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'server-test@example.com', password: 'server-pass' }),
    });
    // Let the request reach the server before shutting down.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const stopped = server.stop();
    expect((await inFlight).status).toBe(201);
    await stopped;
    await expect(fetch(`${base()}/users`)).rejects.toThrow();
    expect(mongoose.connection.readyState).toBe(mongoose.ConnectionStates.disconnected);
  });
});
