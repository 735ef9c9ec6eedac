// The only reader of process.env: every setting is parsed and checked once, and bad values stop
// start-up with one message that names every wrong variable, so a deployment is fixed in one pass.
import { randomBytes } from 'node:crypto';
import { ensurePrivateDir, readPrivateFile, UntrustedDataError, writePrivateFile } from './db/data-dir';
import { DATABASE_START_WAIT_SECONDS } from './db/mongoose';
import { homedir } from 'node:os';
import path from 'node:path';
import dotenv from 'dotenv';
import { parseUpstreamProviders, type UpstreamProvider } from './upstream/upstream.settings';

export type EmbeddedEngine = 'auto' | 'mongod' | 'ferretdb';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly nodeEnv: string;
  readonly isProduction: boolean;
  readonly port: number;
  /** null when WEATHER_PORT=off. */
  readonly weatherPort: number | null;
  /** GET /metrics on a listener of its own; null (the default) for none. */
  readonly metricsPort: number | null;
  /** When set, GET /metrics is also served on the main port to a bearer of this token. */
  readonly metricsToken: string | null;
  /** null: start the embedded database. */
  readonly mongodbUri: string | null;
  /** How long start-up keeps trying to reach the database before it gives up (DB_START_WAIT_SECONDS). */
  readonly databaseStartWaitMs: number;
  readonly embeddedEngine: EmbeddedEngine;
  readonly dataDir: string;
  /** Where tools built on first use (the FerretDB binary) are kept, outside the clone. */
  readonly toolCacheDir: string;
  readonly jwtSecret: string;
  readonly sessionSecret: string;
  readonly publicUrl: string;
  readonly logLevel: LogLevel;
  readonly rateLimits: boolean;
  /** Requests (or failures) allowed per 15 minutes, by rule. */
  readonly limits: {
    /** Failed password checks for one account from one client address: the strict limit. */
    readonly signInPerAccountAndAddress: number;
    /** Failed password checks for one account from anywhere: high, so others cannot lock the owner out. */
    readonly signInPerAccount: number;
    /** Failed password checks from one address, whatever the account. */
    readonly signInPerAddress: number;
    /** Token requests from one address, and by one client once it authenticated. */
    readonly tokenPerAddress: number;
    readonly tokenPerClient: number;
    /** Failed client authentications as one client from one address (token, PAR, device authorization). */
    readonly clientFailuresPerAddress: number;
    readonly refreshPerAddress: number;
    /** Device flow user codes typed on the verification page, or approved or denied, from one address. */
    readonly userCodePerAddress: number;
    /** Accounts created with POST /users from one address. */
    readonly signUpPerAddress: number;
    /** Clients registered (POST /oauth/clients, POST /oauth/register) from one address. */
    readonly registrationPerAddress: number;
    /** Device authorizations started (POST /oauth/device_authorization) from one address, and by one authenticated client. */
    readonly deviceAuthorizationPerAddress: number;
    readonly deviceAuthorizationPerClient: number;
    /** Request objects fetched from one client's `request_uris` (OIDC Core §6.2) for requests from one address. */
    readonly requestUriFetchesPerClientAndAddress: number;
    /** Pushed authorization requests (POST /oauth/par) from one address, and by one authenticated client. */
    readonly pushedRequestsPerAddress: number;
    readonly pushedRequestsPerClient: number;
  };
  /** `open`: seed 000's credential-free /users; `jwt`: own record only, people with the admin role for everyone's. */
  readonly usersApiAuth: 'open' | 'jwt';
  /**
   * Dynamic registration (POST /oauth/register): `token` needs an access token from POST /auth;
   * `open` also lets anyone register a public client (MCP clients do); `closed`: operators only.
   */
  readonly registration: {
    readonly mode: (typeof REGISTRATION_MODES)[number];
    /** Clients registered without a token that were never used, at most this many at once. */
    readonly openCap: number;
    /** A client registered without a token that gets no token in this many hours is deleted. */
    readonly unusedHours: number;
  };
  /**
   * OAuth Client ID Metadata Documents (docs/oauth.md): an https client_id with a path names a document
   * the client publishes. `any`: every host the operator did not block; `allowed`: only hosts the
   * operator allowed; `off`: such ids are unknown clients.
   */
  readonly clientDocuments: {
    readonly mode: (typeof CLIENT_DOCUMENT_MODES)[number];
    /** A document's fetch gives up after this. */
    readonly timeoutMs: number;
  };
  /** Origins allowed to call the API from a browser (CORS); empty: CORS is off. */
  readonly corsOrigins: readonly string[];
  /** Express's `trust proxy`: false, true, a hop count, or addresses and subnets. */
  readonly trustProxy: boolean | number | readonly string[];
  /** Remember successful HTTP Basic verifications (off only to measure what it saves). */
  readonly credentialCache: boolean;
  readonly oauth: {
    /** Variant B (POST /oauth/token), seconds. */
    readonly accessTokenLifetime: number;
    /** Variant A (POST /v1/oauth/token) and implicit grants, seconds. */
    readonly v1AccessTokenLifetime: number;
    readonly refreshTokenLifetime: number;
    /** Seconds in which a just-rotated refresh token may be presented again by its client (0: never). */
    readonly refreshGraceSeconds: number;
    /** Device flow (RFC 8628): the polling interval a device is told, seconds. */
    readonly devicePollInterval: number;
    /** ID tokens, seconds. */
    readonly idTokenLifetime: number;
    /** Encrypts the private parts of the ID token signing keys stored in the database. */
    readonly signingKeysSecret: string;
    /** How often an instance re-reads the signing keys (a rotation reaches it within this), seconds. */
    readonly signingKeysRefresh: number;
    /** RFC 9126 §5: every authorization request must be pushed first (POST /oauth/par). */
    readonly requirePushedRequests: boolean;
    /** RFC 9449 §8 and §9: DPoP proofs must carry a nonce this server handed out (DPoP-Nonce). */
    readonly dpopNonces: boolean;
  };
  readonly github: {
    /** null when GITHUB_CLIENT_ID or GITHUB_CLIENT_SECRET is unset: /auth/github then answers 503. */
    readonly credentials: { readonly clientId: string; readonly clientSecret: string } | null;
    /** The one of the pair that is missing when the other is set (a start-up warning names it). */
    readonly missing: 'GITHUB_CLIENT_ID' | 'GITHUB_CLIENT_SECRET' | null;
    readonly callbackUrl: string;
    readonly authorizationUrl: string;
    readonly tokenUrl: string;
    readonly userProfileUrl: string;
    readonly userEmailsUrl: string;
  };
  /** docs/upstream.md: the OpenID providers people may sign in through (UPSTREAM_PROVIDERS). */
  readonly upstream: {
    readonly providers: readonly UpstreamProvider[];
    /** Each request to a provider (discovery, token, keys, userinfo) gives up after this. */
    readonly timeoutMs: number;
  };
  /** docs/operations.md (Mail): where account mail goes. */
  readonly mail: {
    /** `smtp://` or `smtps://` with optional user and password; null: the development outbox, or no mail in production. */
    readonly smtpUrl: string | null;
    /** The From address of every message. */
    readonly from: string;
  };
  /** argon2id parameters for new password hashes. */
  readonly passwordHashing: { readonly memoryKib: number; readonly timeCost: number; readonly parallelism: number };
  readonly weather: {
    readonly openWeatherMapUrl: string;
    readonly openWeatherMapApiKey: string | null;
    readonly wundergroundUrl: string;
    readonly wundergroundApiKey: string | null;
    readonly timeoutMs: number;
  };
  /** Secrets generated for this start because the environment had none (names only). */
  readonly generatedSecrets: readonly string[];
}

export class ConfigError extends Error {
  /** One "<VARIABLE> <problem>" line per wrong variable. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid configuration:${problems.length === 1 ? ` ${problems[0]}` : `\n  ${problems.join('\n  ')}`}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** The environment being read, and the problems found in it so far. */
interface Env {
  readonly values: Record<string, string | undefined>;
  readonly problems: string[];
}

/** Notes a wrong value and carries on with the default, so that every problem is reported at once. */
function invalid<T>(env: Env, name: string, problem: string, fallback: T): T {
  env.problems.push(`${name} ${problem}`);
  return fallback;
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const ENGINES: readonly EmbeddedEngine[] = ['auto', 'mongod', 'ferretdb'];
const MIN_SECRET_LENGTH = 32;
// Ten years: long enough for any sane lifetime, short enough that expiry dates stay valid.
const MAX_LIFETIME_SECONDS = 315_360_000;
const MAX_LIMIT = 1_000_000;

function read(env: Env, name: string): string | undefined {
  const value = env.values[name]?.trim();
  return value === '' ? undefined : value;
}

function port(env: Env, name: string, fallback: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  // 0 asks the OS for a free port (tests run several servers at once).
  if (!/^\d{1,5}$/.test(raw) || value > 65535) {
    return invalid(env, name, `must be a port number from 0 to 65535 (got "${raw}")`, fallback);
  }
  return value;
}

/** Which hosts' client metadata documents are fetched (Config `clientDocuments`). */
export const CLIENT_DOCUMENT_MODES = ['any', 'allowed', 'off'] as const;

/** How dynamic registration is opened (Config `registration`). */
export const REGISTRATION_MODES = ['open', 'token', 'closed'] as const;

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name)?.toLowerCase() ?? fallback;
  if (!allowed.includes(raw as T)) return invalid(env, name, `must be one of ${allowed.join(', ')} (got "${raw}")`, fallback);
  return raw as T;
}

function onOff(env: Env, name: string, fallback: 'on' | 'off' = 'on'): boolean {
  return oneOf(env, name, ['on', 'off'], fallback) === 'on';
}

function url(env: Env, name: string, fallback: string): string {
  const raw = read(env, name) ?? fallback;
  const protocol = URL.parse(raw)?.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') return invalid(env, name, `must be an absolute http(s) URL (got "${raw}")`, fallback);
  return raw.replace(/\/+$/, '');
}

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    return invalid(env, name, `must be a whole number from ${min} to ${max} (got "${raw}")`, fallback);
  }
  return Number(raw);
}

const positiveInteger = (env: Env, name: string, fallback: number, max: number) => wholeNumber(env, name, fallback, 1, max);

function origins(env: Env): string[] {
  const raw = read(env, 'CORS_ORIGINS');
  if (!raw) return [];
  const values = raw.split(',').map((origin) => origin.trim());
  for (const value of values) {
    const parsed = URL.parse(value);
    if (!parsed) {
      return invalid(env, 'CORS_ORIGINS', `must be a comma-separated list of origins such as https://app.example.com (got "${value}")`, []);
    }
    if (parsed.origin !== value) return invalid(env, 'CORS_ORIGINS', `must list bare origins, without paths (got "${value}")`, []);
  }
  return values;
}

function trustProxy(env: Env): boolean | number | string[] {
  const raw = read(env, 'TRUST_PROXY')?.toLowerCase() ?? 'false';
  if (raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => /^[0-9a-f:.]+(\/\d{1,3})?$|^(loopback|linklocal|uniquelocal)$/.test(entry))) return entries;
  return invalid(env, 'TRUST_PROXY', `must be false, true, a hop count, or IP addresses and subnets (got "${raw}")`, false);
}

/**
 * The embedded database serves one developer's machine: in production MONGODB_URI is required, unless
 * the operator opts in with EMBEDDED_DB_IN_PRODUCTION=1 (docs/operations.md).
 */
function mongodbUri(env: Env, isProduction: boolean): string | null {
  const raw = read(env, 'MONGODB_URI');
  if (raw === undefined && isProduction && read(env, 'EMBEDDED_DB_IN_PRODUCTION') !== '1') {
    return invalid(
      env,
      'MONGODB_URI',
      'is required when NODE_ENV=production (the embedded database is for development; set EMBEDDED_DB_IN_PRODUCTION=1 to use it anyway)',
      null,
    );
  }
  if (raw === undefined) return null;
  if (!/^mongodb(\+srv)?:\/\/./.test(raw)) {
    // The value may hold a password, so it is not repeated in the message.
    return invalid(env, 'MONGODB_URI', 'must start with mongodb:// or mongodb+srv://', null);
  }
  return raw;
}

function smtpUrl(env: Env): string | null {
  const raw = read(env, 'SMTP_URL');
  if (raw === undefined) return null;
  const parsed = URL.parse(raw);
  // The value may hold a password, so it is not repeated in the message.
  if (!parsed || !['smtp:', 'smtps:'].includes(parsed.protocol) || !parsed.hostname) {
    return invalid(env, 'SMTP_URL', 'must be smtp://host:port or smtps://host:port, with an optional user:password@', null);
  }
  return raw;
}

function mailFrom(env: Env, publicUrl: string): string {
  const fallback = `no-reply@${new URL(publicUrl).hostname}`;
  const raw = read(env, 'MAIL_FROM');
  if (raw === undefined) return fallback;
  // One line, with an address in it: a header value must not carry a line break.
  if (/[\r\n]/.test(raw) || !/[^\s@<>]+@[^\s@<>]+/.test(raw)) {
    return invalid(env, 'MAIL_FROM', `must be one address such as "Example <no-reply@example.com>" (got "${raw}")`, fallback);
  }
  return raw;
}

function upstreamProviders(env: Env): UpstreamProvider[] {
  const { providers, problems } = parseUpstreamProviders(read(env, 'UPSTREAM_PROVIDERS'));
  for (const problem of problems) invalid(env, 'UPSTREAM_PROVIDERS', problem, null);
  return providers;
}

function optionalSecret(env: Env, name: string): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  return raw.length >= MIN_SECRET_LENGTH ? raw : invalid(env, name, `must be at least ${MIN_SECRET_LENGTH} characters long`, null);
}

function secret(env: Env, name: string, isProduction: boolean, generated: string[]): string {
  if (read(env, name) !== undefined) return optionalSecret(env, name) ?? '';
  if (isProduction) return invalid(env, name, 'is required when NODE_ENV=production', '');
  generated.push(name);
  return randomBytes(32).toString('base64url');
}

/** Builds the configuration from an environment; pure, so tests can pass their own. */
export function loadConfig(values: Record<string, string | undefined>): Config {
  const env: Env = { values, problems: [] };
  const nodeEnv = read(env, 'NODE_ENV') ?? 'development';
  const isProduction = nodeEnv === 'production';
  const generatedSecrets: string[] = [];
  const mainPort = port(env, 'PORT', 3000);
  const weatherRaw = read(env, 'WEATHER_PORT');

  // In production http://localhost would be the issuer, and every link the server builds would point there.
  if (isProduction && read(env, 'PUBLIC_URL') === undefined) {
    invalid(
      env,
      'PUBLIC_URL',
      'is required when NODE_ENV=production (the issuer and the base of every link; for example https://id.example.com)',
      '',
    );
  }
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${mainPort}`);
  const githubClientId = read(env, 'GITHUB_CLIENT_ID');
  const githubClientSecret = read(env, 'GITHUB_CLIENT_SECRET');

  const config: Config = Object.freeze({
    nodeEnv,
    isProduction,
    port: mainPort,
    weatherPort: weatherRaw?.toLowerCase() === 'off' ? null : port(env, 'WEATHER_PORT', 8080),
    metricsPort: read(env, 'METRICS_PORT') === undefined ? null : port(env, 'METRICS_PORT', 0),
    metricsToken: optionalSecret(env, 'METRICS_TOKEN'),
    mongodbUri: mongodbUri(env, isProduction),
    databaseStartWaitMs: positiveInteger(env, 'DB_START_WAIT_SECONDS', DATABASE_START_WAIT_SECONDS, 600) * 1000,
    embeddedEngine: oneOf(env, 'EMBEDDED_DB_ENGINE', ENGINES, 'auto'),
    dataDir: read(env, 'DATA_DIR') ?? '.data',
    toolCacheDir: path.join(read(env, 'XDG_CACHE_HOME') ?? path.join(homedir(), '.cache'), 'rest-api-server'),
    jwtSecret: secret(env, 'JWT_SECRET', isProduction, generatedSecrets),
    sessionSecret: secret(env, 'SESSION_SECRET', isProduction, generatedSecrets),
    publicUrl,
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    rateLimits: onOff(env, 'RATE_LIMITS'),
    limits: Object.freeze({
      signInPerAccountAndAddress: positiveInteger(env, 'RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_ADDRESS', 10, MAX_LIMIT),
      signInPerAccount: positiveInteger(env, 'RATE_LIMIT_SIGN_IN_PER_ACCOUNT', 100, MAX_LIMIT),
      signInPerAddress: positiveInteger(env, 'RATE_LIMIT_SIGN_IN_PER_ADDRESS', 100, MAX_LIMIT),
      tokenPerAddress: positiveInteger(env, 'RATE_LIMIT_TOKEN_PER_ADDRESS', 300, MAX_LIMIT),
      tokenPerClient: positiveInteger(env, 'RATE_LIMIT_TOKEN_PER_CLIENT', 1000, MAX_LIMIT),
      clientFailuresPerAddress: positiveInteger(env, 'RATE_LIMIT_CLIENT_FAILURES_PER_ADDRESS', 30, MAX_LIMIT),
      userCodePerAddress: positiveInteger(env, 'RATE_LIMIT_USER_CODE_PER_ADDRESS', 20, MAX_LIMIT),
      refreshPerAddress: positiveInteger(env, 'RATE_LIMIT_REFRESH_PER_ADDRESS', 300, MAX_LIMIT),
      signUpPerAddress: positiveInteger(env, 'RATE_LIMIT_SIGN_UP_PER_ADDRESS', 20, MAX_LIMIT),
      registrationPerAddress: positiveInteger(env, 'RATE_LIMIT_REGISTRATION_PER_ADDRESS', 20, MAX_LIMIT),
      deviceAuthorizationPerAddress: positiveInteger(env, 'RATE_LIMIT_DEVICE_AUTHORIZATION_PER_ADDRESS', 60, MAX_LIMIT),
      deviceAuthorizationPerClient: positiveInteger(env, 'RATE_LIMIT_DEVICE_AUTHORIZATION_PER_CLIENT', 300, MAX_LIMIT),
      requestUriFetchesPerClientAndAddress: positiveInteger(env, 'RATE_LIMIT_REQUEST_URI_PER_CLIENT_AND_ADDRESS', 30, MAX_LIMIT),
      pushedRequestsPerAddress: positiveInteger(env, 'RATE_LIMIT_PAR_PER_ADDRESS', 300, MAX_LIMIT),
      pushedRequestsPerClient: positiveInteger(env, 'RATE_LIMIT_PAR_PER_CLIENT', 1000, MAX_LIMIT),
    }),
    usersApiAuth: oneOf(env, 'USERS_API_AUTH', ['open', 'jwt'], 'open'),
    registration: Object.freeze({
      mode: oneOf(env, 'REGISTRATION', REGISTRATION_MODES, 'token'),
      openCap: positiveInteger(env, 'OPEN_REGISTRATION_CAP', 500, 100_000),
      unusedHours: positiveInteger(env, 'OPEN_REGISTRATION_UNUSED_HOURS', 24, 24 * 30),
    }),
    clientDocuments: Object.freeze({
      mode: oneOf(env, 'CLIENT_ID_DOCUMENTS', CLIENT_DOCUMENT_MODES, 'any'),
      timeoutMs: positiveInteger(env, 'CLIENT_ID_DOCUMENT_TIMEOUT_MS', 5000, 30_000),
    }),
    corsOrigins: Object.freeze(origins(env)),
    trustProxy: trustProxy(env),
    credentialCache: onOff(env, 'CREDENTIAL_CACHE'),
    oauth: Object.freeze({
      accessTokenLifetime: positiveInteger(env, 'OAUTH_ACCESS_TOKEN_LIFETIME', 31_536_000, MAX_LIFETIME_SECONDS),
      v1AccessTokenLifetime: positiveInteger(env, 'OAUTH_V1_ACCESS_TOKEN_LIFETIME', 2_592_000, MAX_LIFETIME_SECONDS),
      refreshTokenLifetime: positiveInteger(env, 'OAUTH_REFRESH_TOKEN_LIFETIME', 31_536_000, MAX_LIFETIME_SECONDS),
      refreshGraceSeconds: wholeNumber(env, 'OAUTH_REFRESH_GRACE_SECONDS', 0, 0, 300),
      devicePollInterval: positiveInteger(env, 'OAUTH_DEVICE_POLL_INTERVAL', 5, 60),
      idTokenLifetime: positiveInteger(env, 'OIDC_ID_TOKEN_LIFETIME', 3600, 86_400),
      signingKeysSecret: secret(env, 'SIGNING_KEYS_SECRET', isProduction, generatedSecrets),
      signingKeysRefresh: positiveInteger(env, 'OIDC_KEYS_REFRESH_SECONDS', 30, 60),
      requirePushedRequests: onOff(env, 'OAUTH_REQUIRE_PAR', 'off'),
      dpopNonces: onOff(env, 'DPOP_NONCES', 'off'),
    }),
    github: Object.freeze({
      credentials:
        githubClientId && githubClientSecret ? Object.freeze({ clientId: githubClientId, clientSecret: githubClientSecret }) : null,
      missing:
        githubClientId && !githubClientSecret ? 'GITHUB_CLIENT_SECRET' : githubClientSecret && !githubClientId ? 'GITHUB_CLIENT_ID' : null,
      callbackUrl: url(env, 'GITHUB_CALLBACK_URL', `${publicUrl}/auth/github`),
      authorizationUrl: url(env, 'GITHUB_AUTHORIZATION_URL', 'https://github.com/login/oauth/authorize'),
      tokenUrl: url(env, 'GITHUB_TOKEN_URL', 'https://github.com/login/oauth/access_token'),
      userProfileUrl: url(env, 'GITHUB_USER_PROFILE_URL', 'https://api.github.com/user'),
      userEmailsUrl: url(env, 'GITHUB_USER_EMAILS_URL', 'https://api.github.com/user/emails'),
    }),
    upstream: Object.freeze({
      providers: Object.freeze(upstreamProviders(env)),
      timeoutMs: positiveInteger(env, 'UPSTREAM_TIMEOUT_MS', 10_000, 120_000),
    }),
    mail: Object.freeze({ smtpUrl: smtpUrl(env), from: mailFrom(env, publicUrl) }),
    passwordHashing: Object.freeze({
      memoryKib: positiveInteger(env, 'ARGON2_MEMORY_KIB', 19_456, 4_194_304),
      timeCost: positiveInteger(env, 'ARGON2_TIME_COST', 2, 20),
      parallelism: positiveInteger(env, 'ARGON2_PARALLELISM', 1, 16),
    }),
    weather: Object.freeze({
      openWeatherMapUrl: url(env, 'OPENWEATHERMAP_URL', 'http://api.openweathermap.org/data/2.5/weather'),
      openWeatherMapApiKey: read(env, 'OPENWEATHERMAP_API_KEY') ?? null,
      wundergroundUrl: url(env, 'WUNDERGROUND_URL', 'http://api.wunderground.com'),
      wundergroundApiKey: read(env, 'WUNDERGROUND_API_KEY') ?? null,
      timeoutMs: positiveInteger(env, 'WEATHER_TIMEOUT_MS', 5000, 120_000),
    }),
    generatedSecrets: Object.freeze(generatedSecrets),
  });
  if (isProduction) sameSecrets(env, config);
  if (env.problems.length) throw new ConfigError(env.problems);
  return config;
}

/**
 * Each secret guards something else (seed 000's JWTs, sessions and CSRF, the signing keys at rest): one
 * value for two would let whoever learns one forge the other's. Refused in production, naming them.
 */
function sameSecrets(
  env: Env,
  config: Pick<Config, 'jwtSecret' | 'sessionSecret'> & { oauth: Pick<Config['oauth'], 'signingKeysSecret'> },
) {
  const secrets: [string, string][] = [
    ['JWT_SECRET', config.jwtSecret],
    ['SESSION_SECRET', config.sessionSecret],
    ['SIGNING_KEYS_SECRET', config.oauth.signingKeysSecret],
  ];
  for (let i = 0; i < secrets.length; i++) {
    for (let j = i + 1; j < secrets.length; j++) {
      if (secrets[i][1] !== '' && secrets[i][1] === secrets[j][1]) {
        invalid(env, secrets[i][0], `and ${secrets[j][0]} must be different values (each guards something else)`, '');
      }
    }
  }
}

/** What start-up should warn about: settings that work, but not as a deployment would want. */
export function startupWarnings(config: Config): string[] {
  const warnings = config.generatedSecrets.map(
    (name) => `${name} is not set: a random one was generated for this start (set it to keep sessions and tokens valid across restarts)`,
  );
  if (config.isProduction && config.usersApiAuth === 'open') {
    warnings.push(
      'USERS_API_AUTH=open in production: anyone can list every user, and change (password and permissionFlags included) ' +
        "or delete any account without credentials (seed 000's behaviour; permissionFlags give no role, the console and the " +
        "admin API stay closed); set USERS_API_AUTH=jwt to require the account's own access token",
    );
  }
  if (config.isProduction && config.trustProxy === false) {
    warnings.push(
      'TRUST_PROXY is false in production: the server speaks plain http and sees no proxy, so browsers get no session or ' +
        'CSRF cookie (they are Secure there) and nobody can sign in on its pages; set TRUST_PROXY to the proxy that terminates TLS',
    );
  }
  const { missing } = config.github;
  if (missing) {
    const other = missing === 'GITHUB_CLIENT_ID' ? 'GITHUB_CLIENT_SECRET' : 'GITHUB_CLIENT_ID';
    warnings.push(`${other} is set but ${missing} is not: /auth/github answers 503 until both are`);
  }
  if (config.isProduction && !config.mail.smtpUrl) {
    warnings.push('SMTP_URL is not set: no mail is sent, so sign-up sends no verification link and forgotten passwords cannot be reset');
  }
  const missingKeys = [
    config.weather.openWeatherMapApiKey ? null : 'OPENWEATHERMAP_API_KEY',
    config.weather.wundergroundApiKey ? null : 'WUNDERGROUND_API_KEY',
  ].filter((name) => name !== null);
  if (missingKeys.length) {
    warnings.push(
      `${missingKeys.join(' and ')} ${missingKeys.length > 1 ? 'are' : 'is'} not set: GET /weather/:city answers 500 until ${missingKeys.length > 1 ? 'they are' : 'it is'}`,
    );
  }
  return warnings;
}

const DEVELOPMENT_SECRETS = ['JWT_SECRET', 'SESSION_SECRET', 'SIGNING_KEYS_SECRET'] as const;

/**
 * Outside production, the secrets the environment leaves out are made once and kept in
 * DATA_DIR/dev-secrets.json (owner-only), so a restart, `npm run dev`'s reloads and the commands all
 * use the same ones: nobody is signed out and `npm run keys` works. Production never gets here: it
 * refuses to start without them. Returns the environment with them filled in.
 */
export function withDevelopmentSecrets(values: Record<string, string | undefined>): Record<string, string | undefined> {
  if ((values.NODE_ENV ?? 'development') === 'production') return values;
  const missing = DEVELOPMENT_SECRETS.filter((name) => !values[name]);
  if (missing.length === 0) return values;
  const dataDir = values.DATA_DIR || '.data';
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, 'dev-secrets.json');
  const fresh = JSON.stringify(Object.fromEntries(DEVELOPMENT_SECRETS.map((name) => [name, randomBytes(32).toString('base64url')])));
  // Exclusive: of two processes starting for the first time at once, one writes and both read it.
  writePrivateFile(file, fresh, true);
  let stored: Record<string, string> | undefined;
  for (let attempt = 0; attempt < 20 && !stored; attempt += 1) {
    try {
      stored = JSON.parse(readPrivateFile(file) ?? '') as Record<string, string>;
    } catch (err) {
      if (err instanceof UntrustedDataError) throw err;
      // Being written by the process that created it: a moment later it is whole.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
  const kept = stored;
  if (!kept) throw new Error(`${file} is not readable JSON: delete it to make new development secrets`);
  return { ...values, ...Object.fromEntries(missing.map((name) => [name, kept[name]])) };
}

/** Reads `.env` (without overriding the real environment) and then the process environment. */
export function loadConfigFromProcess(): Config {
  dotenv.config({ quiet: true });
  return loadConfig(withDevelopmentSecrets(process.env));
}
