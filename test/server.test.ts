import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { loadConfig, startupWarnings } from '../src/config';
import { startEmbeddedDatabase } from '../src/db/embedded';
import { ferretSocketOf, socketUri } from '../src/db/ferretdb';
import { freePort } from './helpers/ports';
import { start, type RunningServer } from '../src/server';
import { testConfig } from './helpers/app';
import { testDatabaseUriWithName } from './helpers/db';
import { capturingLogger } from './helpers/logs';

describe('start()', () => {
  let server: RunningServer;
  const base = () => `http://127.0.0.1:${server.port}`;

  beforeAll(async () => {
    server = await start(testConfig({ PORT: '0', WEATHER_PORT: '0', MONGODB_URI: testDatabaseUriWithName() }));
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

  it('serves only the weather routes on the weather port, and them on the main port too', async () => {
    expect(server.weatherPort).toEqual(expect.any(Number));
    expect(server.weatherPort).not.toBe(server.port);
    const weather = `http://127.0.0.1:${server.weatherPort}`;
    expect(await (await fetch(`${weather}/hello`)).text()).toBe('hello!');
    expect(await (await fetch(`${base()}/hello`)).text()).toBe('hello!');
    expect((await fetch(`${weather}/users`)).status).toBe(404);
    expect((await fetch(`${weather}/api/v1/products`)).status).toBe(404);
  });

  it('finishes in-flight requests on stop, then refuses connections and closes the database', async () => {
    // Half the body goes out before the stop, the rest after: the request is surely in flight.
    const body = JSON.stringify({ email: 'server-test@example.com', password: 'server-pass' });
    const req = http.request(`${base()}/auth`, {
      method: 'POST',
      agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    });
    const response = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const stopped = server.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    req.end(body.slice(10));
    expect(await response).toBe(201);
    await stopped;
    await expect(fetch(`${base()}/users`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${server.weatherPort}/hello`)).rejects.toThrow();
    expect(mongoose.connection.readyState).toBe(mongoose.ConnectionStates.disconnected);
  });
});

describe('start() with METRICS_PORT', () => {
  it('serves the metrics to anyone on that port and nothing else there, and not on the main port', async () => {
    const server = await start(testConfig({ PORT: '0', WEATHER_PORT: 'off', METRICS_PORT: '0', MONGODB_URI: testDatabaseUriWithName() }));
    try {
      const metrics = `http://127.0.0.1:${server.metricsPort}`;
      const scraped = await fetch(`${metrics}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/^# HELP http_requests_total /m);
      expect((await fetch(`${metrics}/users`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).toBe(404);
    } finally {
      await server.stop();
    }
    await expect(fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).rejects.toThrow();
  });
});

describe('start() with WEATHER_PORT=off', () => {
  it('opens no weather listener', async () => {
    const server = await start(testConfig({ PORT: '0', WEATHER_PORT: 'off', MONGODB_URI: testDatabaseUriWithName() }));
    try {
      expect(server.weatherPort).toBeNull();
      expect((await fetch(`http://127.0.0.1:${server.port}/hello`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

const WEATHER_KEYS = { OPENWEATHERMAP_API_KEY: 'owm-key', WUNDERGROUND_API_KEY: 'wu-key' };

/** Starts and stops a server with a capturing logger; returns the warnings it logged and every raw line. */
async function warningsAtStart(config: ReturnType<typeof loadConfig>) {
  const { logger, lines } = capturingLogger('warn');
  const server = await start(config, logger);
  await server.stop();
  const warnings = lines
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.level === 40)
    .map((entry) => entry.msg as string);
  return { warnings, lines };
}

describe('start() without secrets outside production', () => {
  it('warns that each missing secret was generated for this start, naming it but not its value', async () => {
    const config = loadConfig({
      NODE_ENV: 'development',
      PORT: '0',
      WEATHER_PORT: 'off',
      MONGODB_URI: testDatabaseUriWithName(),
      LOG_LEVEL: 'warn',
      ...WEATHER_KEYS,
    });
    const { warnings, lines } = await warningsAtStart(config);
    expect(warnings).toEqual([
      expect.stringMatching(/^JWT_SECRET is not set: a random one was generated/),
      expect.stringMatching(/^SESSION_SECRET is not set: a random one was generated/),
      expect.stringMatching(/^SIGNING_KEYS_SECRET is not set: a random one was generated/),
    ]);
    expect(lines.join('')).not.toContain(config.jwtSecret);
    expect(lines.join('')).not.toContain(config.sessionSecret);
    expect(lines.join('')).not.toContain(config.oauth.signingKeysSecret);
  });
});

/** A production start on a database of its own, weather keys set, warnings logged. */
const productionEnv = () => ({
  NODE_ENV: 'production',
  PORT: '0',
  WEATHER_PORT: 'off',
  MONGODB_URI: testDatabaseUriWithName(),
  LOG_LEVEL: 'warn',
  TRUST_PROXY: '1',
  ...WEATHER_KEYS,
});

describe('start() in production with USERS_API_AUTH=open', () => {
  it('warns that anyone can change or delete every account, and that the flags they write give no role', async () => {
    // Mail is configured (nothing is sent here), so only the users API's warning remains.
    const production = { ...productionEnv(), SMTP_URL: 'smtp://127.0.0.1:2525' };
    const open = await warningsAtStart(testConfig(production));
    expect(open.warnings).toEqual([
      expect.stringMatching(/^USERS_API_AUTH=open in production: anyone can .* without credentials .*permissionFlags give no role/),
    ]);
    const quiet = await warningsAtStart(testConfig({ ...production, USERS_API_AUTH: 'jwt' }));
    expect(quiet.lines).toEqual([]);
  });
});

describe('start() in production without SMTP_URL', () => {
  it('warns that no mail is sent', async () => {
    const { warnings } = await warningsAtStart(testConfig({ ...productionEnv(), USERS_API_AUTH: 'jwt', SMTP_URL: '' }));
    expect(warnings).toEqual([expect.stringMatching(/^SMTP_URL is not set: no mail is sent/)]);
  });
});

describe('start() without weather keys', () => {
  it('warns once at start-up, and each weather request is a plain 500 logged without a stack trace', async () => {
    const { logger, lines } = capturingLogger('warn');
    const config = testConfig({
      PORT: '0',
      WEATHER_PORT: 'off',
      MONGODB_URI: testDatabaseUriWithName(),
      OPENWEATHERMAP_API_KEY: 'owm-key',
    });
    const server = await start(config, logger);
    try {
      const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(warnings).toEqual([
        expect.objectContaining({ level: 40, msg: 'WUNDERGROUND_API_KEY is not set: GET /weather/:city answers 500 until it is' }),
      ]);
      lines.length = 0;
      const res = await fetch(`http://127.0.0.1:${server.port}/weather/Oslo`);
      expect(res.status).toBe(500);
      expect(await res.text()).toBe('weather provider wunderground has no API key (set WUNDERGROUND_API_KEY)');
    } finally {
      await server.stop();
    }
    const failure = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.msg === 'request failed');
    expect(failure).toMatchObject({ level: 50, error: 'weather provider wunderground has no API key (set WUNDERGROUND_API_KEY)' });
    expect(lines.join('')).not.toMatch(/"stack"|owm-key/);
  });

  it('warns that production without TRUST_PROXY gives browsers no session cookie', () => {
    const production = { NODE_ENV: 'production', OPENWEATHERMAP_API_KEY: 'k', WUNDERGROUND_API_KEY: 'k', SMTP_URL: 'smtp://127.0.0.1:25' };
    const settings = { ...production, USERS_API_AUTH: 'jwt', PUBLIC_URL: 'https://id.example.com' };
    expect(startupWarnings(testConfig({ ...settings, TRUST_PROXY: 'false' }))).toEqual([
      expect.stringMatching(/^TRUST_PROXY is false in production: .*set TRUST_PROXY/),
    ]);
    expect(startupWarnings(testConfig({ ...settings, TRUST_PROXY: '1' }))).toEqual([]);
  });

  it('names both keys in one warning when neither is set', () => {
    expect(startupWarnings(testConfig())).toEqual([
      'OPENWEATHERMAP_API_KEY and WUNDERGROUND_API_KEY are not set: GET /weather/:city answers 500 until they are',
    ]);
  });
});

describe('start() when a port is taken', () => {
  it('names the variable that chose it, and leaves nothing listening', async () => {
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(0, resolve));
    const taken = (holder.address() as { port: number }).port;
    try {
      const config = testConfig({ PORT: '0', WEATHER_PORT: String(taken), MONGODB_URI: testDatabaseUriWithName() });
      const failure = await start(config, capturingLogger('silent').logger).then(
        () => null,
        (err: unknown) => err as Error,
      );
      expect(failure?.message).toBe(
        `WEATHER_PORT=${taken}: another process is listening there (EADDRINUSE); set WEATHER_PORT to a free port, or off`,
      );
      const main = await start(
        testConfig({ PORT: String(taken), WEATHER_PORT: 'off', MONGODB_URI: testDatabaseUriWithName() }),
        capturingLogger('silent').logger,
      ).then(
        () => null,
        (err: unknown) => err as Error,
      );
      expect(main?.message).toMatch(
        new RegExp(`^PORT=${taken}: another process is listening there \\(EADDRINUSE\\); set PORT to a free port$`),
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

describe('start() with an unreachable MONGODB_URI', () => {
  it('fails naming the variable and the host, never the password in it', async () => {
    const port = await freePort();
    const config = testConfig({
      PORT: '0',
      WEATHER_PORT: 'off',
      MONGODB_URI: `mongodb://admin:hunter2-secret@127.0.0.1:${port}/app?authSource=admin`,
      DB_START_WAIT_SECONDS: '1',
    });
    const { logger, lines } = capturingLogger('info');
    const failure = await start(config, logger).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(failure?.message).toMatch(new RegExp(`^the database at MONGODB_URI \\(127\\.0\\.0\\.1:${port}\\) did not answer: `));
    expect(`${failure?.message}${lines.join('')}`).not.toContain('hunter2');
  });
});

describe('start() while the database is still starting', () => {
  it('keeps trying for DB_START_WAIT_SECONDS and starts once the database answers', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'late-db-'));
    const socket = ferretSocketOf(path.join(dataDir, 'ferretdb'));
    const config = testConfig({ PORT: '0', WEATHER_PORT: 'off', MONGODB_URI: `${socketUri(socket)}late`, DB_START_WAIT_SECONDS: '30' });
    const { logger } = capturingLogger('info');
    const starting = start(config, logger);
    // Nothing listens yet: the first attempts fail, and start-up goes on trying.
    const { embeddedEngine, toolCacheDir } = loadConfig(process.env);
    const database = await startEmbeddedDatabase({ engine: embeddedEngine, dataDir, cacheDir: toolCacheDir, log: () => undefined });
    try {
      const server = await starting;
      const created = await fetch(`http://127.0.0.1:${server.port}/users`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'late@example.com', password: 'late-password' }),
      });
      expect(created.status).toBe(201);
      await server.stop();
    } finally {
      await database.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
