import { chmod, chown, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, withDevelopmentSecrets } from '../src/config';
import { runCommand } from './helpers/commands';
import { testDatabaseUriWithName } from './helpers/db';

const SECRET = 'x'.repeat(32);
const MONGODB_URI = 'mongodb://127.0.0.1:27017/api';
/** What production needs: a database, an address, and three secrets that differ. */
const PRODUCTION = {
  NODE_ENV: 'production',
  MONGODB_URI,
  PUBLIC_URL: 'https://id.example.com',
  JWT_SECRET: SECRET,
  SESSION_SECRET: 'y'.repeat(32),
  SIGNING_KEYS_SECRET: 'z'.repeat(32),
};

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      weatherPort: 8080,
      mongodbUri: null,
      embeddedEngine: 'auto',
      dataDir: '.data',
      publicUrl: 'http://localhost:3000',
      logLevel: 'info',
      rateLimits: true,
      credentialCache: true,
      isProduction: false,
      passwordHashing: { memoryKib: 19456, timeCost: 2, parallelism: 1 },
      oauth: { accessTokenLifetime: 31536000, v1AccessTokenLifetime: 2592000, refreshTokenLifetime: 31536000 },
      weather: {
        openWeatherMapUrl: 'http://api.openweathermap.org/data/2.5/weather',
        openWeatherMapApiKey: null,
        wundergroundUrl: 'http://api.wunderground.com',
        wundergroundApiKey: null,
        timeoutMs: 5000,
      },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('generates missing secrets outside production and says which', () => {
    const first = loadConfig({});
    const second = loadConfig({});
    expect(first.generatedSecrets).toEqual(['JWT_SECRET', 'SESSION_SECRET', 'SIGNING_KEYS_SECRET']);
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.jwtSecret).not.toBe(second.jwtSecret);
  });

  it.each(['JWT_SECRET', 'SESSION_SECRET', 'SIGNING_KEYS_SECRET'])('refuses to start in production without %s', (name) => {
    const env = {
      ...PRODUCTION,
      [name]: '',
    };
    expect(() => loadConfig(env)).toThrow(new ConfigError([`${name} is required when NODE_ENV=production`]));
  });

  it('starts in production when every secret is set, generating none', () => {
    const config = loadConfig(PRODUCTION);
    expect(config.generatedSecrets).toEqual([]);
    expect(config.jwtSecret).toBe(SECRET);
  });

  it.each([
    ['JWT_SECRET', 'SESSION_SECRET'],
    ['JWT_SECRET', 'SIGNING_KEYS_SECRET'],
    ['SESSION_SECRET', 'SIGNING_KEYS_SECRET'],
  ])('refuses the same value for %s and %s in production, naming them, never the value', (first, second) => {
    const env = { ...PRODUCTION, [first]: 'same'.repeat(10), [second]: 'same'.repeat(10) };
    expect(() => loadConfig(env)).toThrow(
      new ConfigError([`${first} and ${second} must be different values (each guards something else)`]),
    );
    // Outside production they are made apart, and set alike only by the developer's own hand.
    expect(() => loadConfig({ [first]: 'same'.repeat(10), [second]: 'same'.repeat(10) })).not.toThrow();
  });

  it('refuses production without PUBLIC_URL: http://localhost would be its issuer', () => {
    const { PUBLIC_URL: _unset, ...rest } = PRODUCTION;
    expect(() => loadConfig(rest)).toThrow(/PUBLIC_URL is required when NODE_ENV=production/);
  });

  it('refuses the embedded database in production unless the operator opts in', () => {
    const { MONGODB_URI: _none, ...production } = PRODUCTION;
    expect(() => loadConfig(production)).toThrow(
      new ConfigError([
        'MONGODB_URI is required when NODE_ENV=production (the embedded database is for development; set EMBEDDED_DB_IN_PRODUCTION=1 to use it anyway)',
      ]),
    );
    expect(loadConfig({ ...production, EMBEDDED_DB_IN_PRODUCTION: '1' }).mongodbUri).toBeNull();
    expect(loadConfig({ JWT_SECRET: SECRET }).mongodbUri).toBeNull();
  });

  it('rejects a short secret without repeating it', () => {
    expect(() => loadConfig({ JWT_SECRET: 'short-secret' })).toThrow(/JWT_SECRET must be at least 32 characters/);
    try {
      loadConfig({ JWT_SECRET: 'short-secret' });
    } catch (err) {
      expect((err as Error).message).not.toContain('short-secret');
    }
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['WEATHER_PORT', '-1'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMITS', 'maybe'],
    ['EMBEDDED_DB_ENGINE', 'postgres'],
    ['PUBLIC_URL', 'not a url'],
    ['PUBLIC_URL', 'ftp://example.com'],
    ['WEATHER_TIMEOUT_MS', '0'],
    ['WEATHER_TIMEOUT_MS', '5s'],
    ['OPENWEATHERMAP_URL', 'api.openweathermap.org'],
    ['CREDENTIAL_CACHE', 'sometimes'],
    ['ARGON2_TIME_COST', '0'],
    ['ARGON2_MEMORY_KIB', 'lots'],
    ['OAUTH_ACCESS_TOKEN_LIFETIME', '-5'],
    ['METRICS_PORT', 'metrics'],
    ['METRICS_TOKEN', 'too-short'],
  ])('names %s in the error for the bad value %s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} `));
  });

  it('names every wrong variable at once, one per line', () => {
    const env = {
      NODE_ENV: 'production',
      PORT: 'abc',
      LOG_LEVEL: 'loud',
      JWT_SECRET: SECRET,
      SESSION_SECRET: 'short',
      TRUST_PROXY: 'maybe',
    };
    let error: unknown;
    try {
      loadConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'PORT must be a port number from 0 to 65535 (got "abc")',
      'PUBLIC_URL is required when NODE_ENV=production (the issuer and the base of every link; for example https://id.example.com)',
      'MONGODB_URI is required when NODE_ENV=production (the embedded database is for development; set EMBEDDED_DB_IN_PRODUCTION=1 to use it anyway)',
      'SESSION_SECRET must be at least 32 characters long',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'TRUST_PROXY must be false, true, a hop count, or IP addresses and subnets (got "maybe")',
      'SIGNING_KEYS_SECRET is required when NODE_ENV=production',
    ]);
    expect((error as Error).message).toBe(`Invalid configuration:\n  ${(error as ConfigError).problems.join('\n  ')}`);
  });

  it('rejects a MONGODB_URI of the wrong scheme without echoing it', () => {
    expect(() => loadConfig({ MONGODB_URI: 'postgres://user:hunter2@db/x' })).toThrow(
      'Invalid configuration: MONGODB_URI must start with mongodb:// or mongodb+srv://',
    );
  });

  it('reads the ports, the URI and the switches', () => {
    const config = loadConfig({
      PORT: '4000',
      WEATHER_PORT: 'off',
      MONGODB_URI: 'mongodb://127.0.0.1:27017/api',
      RATE_LIMITS: 'off',
      PUBLIC_URL: 'https://api.example.com/',
    });
    expect(config).toMatchObject({
      port: 4000,
      weatherPort: null,
      mongodbUri: 'mongodb://127.0.0.1:27017/api',
      rateLimits: false,
      publicUrl: 'https://api.example.com',
    });
  });

  it('derives PUBLIC_URL from PORT', () => {
    expect(loadConfig({ PORT: '4321' }).publicUrl).toBe('http://localhost:4321');
  });
});

describe('development secrets', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'dev-secrets-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('are made once, kept owner-only in DATA_DIR, and the same on every later start', async () => {
    const first = withDevelopmentSecrets({ DATA_DIR: dataDir });
    const second = withDevelopmentSecrets({ DATA_DIR: dataDir });
    for (const name of ['JWT_SECRET', 'SESSION_SECRET', 'SIGNING_KEYS_SECRET']) {
      expect(first[name]).toMatch(/^[\w-]{43}$/);
      expect(second[name]).toBe(first[name]);
    }
    expect((await stat(path.join(dataDir, 'dev-secrets.json'))).mode & 0o777).toBe(0o600);
    expect(loadConfig(second).generatedSecrets).toEqual([]);
  });

  it('are refused when another user could have planted them: a file others may write, a link, or one of another user', async () => {
    const file = path.join(dataDir, 'dev-secrets.json');
    const planted = JSON.stringify({ JWT_SECRET: 'p'.repeat(43), SESSION_SECRET: 'p'.repeat(43), SIGNING_KEYS_SECRET: 'p'.repeat(43) });
    await writeFile(file, planted);
    await chmod(file, 0o666);
    expect(() => withDevelopmentSecrets({ DATA_DIR: dataDir })).toThrow(/dev-secrets\.json may be written by other users/);
    await rm(file);
    await writeFile(path.join(dataDir, 'theirs.json'), planted, { mode: 0o600 });
    await symlink(path.join(dataDir, 'theirs.json'), file);
    expect(() => withDevelopmentSecrets({ DATA_DIR: dataDir })).toThrow(/dev-secrets\.json is a link/);
    if (process.getuid?.() === 0) {
      await rm(file);
      await writeFile(file, planted, { mode: 0o600 });
      await chown(file, 65534, 65534);
      expect(() => withDevelopmentSecrets({ DATA_DIR: dataDir })).toThrow(/dev-secrets\.json belongs to another user \(uid 65534/);
    }
    // A DATA_DIR others may write to is refused before anything in it is read.
    const open = path.join(dataDir, 'open');
    await mkdir(open);
    await chmod(open, 0o777);
    expect(() => withDevelopmentSecrets({ DATA_DIR: open })).toThrow(/DATA_DIR .* may be written by other users/);
  });

  it('leave a secret the environment sets alone, and never touch production', async () => {
    const mine = 'a-secret-of-my-own-that-is-long-enough-for-jwt';
    expect(withDevelopmentSecrets({ DATA_DIR: dataDir, JWT_SECRET: mine }).JWT_SECRET).toBe(mine);
    const production = { DATA_DIR: path.join(dataDir, 'prod'), NODE_ENV: 'production' };
    expect(withDevelopmentSecrets(production)).toBe(production);
    await expect(stat(path.join(dataDir, 'prod', 'dev-secrets.json'))).rejects.toThrow();
  });

  it('let `npm run keys` work in development without SIGNING_KEYS_SECRET', async () => {
    const { stdout } = await runCommand('keys', ['list'], {
      MONGODB_URI: testDatabaseUriWithName(),
      DATA_DIR: dataDir,
      SIGNING_KEYS_SECRET: '',
    });
    expect(stdout).toBe('');
  });
});
