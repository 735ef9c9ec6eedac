import express, { type Express } from 'express';
import { createApp } from '../../src/app';
import type { Clock } from '../../src/common/clock';
import { createLogger } from '../../src/common/logger';
import { createMailer, type Mailer } from '../../src/mail/mailer';
import { loadConfig, type Config } from '../../src/config';
import type { Stores } from '../../src/stores';
import { requestProblem, responseProblem } from './openapi-validator';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-at-least-32-characters';

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: TEST_JWT_SECRET,
    SESSION_SECRET: 'test-session-secret-that-is-at-least-32-chars',
    SIGNING_KEYS_SECRET: 'test-signing-keys-secret-at-least-32-chars',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RATE_LIMITS: 'off',
    // The tests' database (set by global-setup), which production also requires.
    ...(process.env.MONGODB_URI ? { MONGODB_URI: process.env.MONGODB_URI } : {}),
    // Production requires an address too: a test that runs production names one, or gets this.
    ...(overrides.NODE_ENV === 'production' ? { PUBLIC_URL: 'http://localhost:3000' } : {}),
    ...overrides,
  });
}

const violations: string[] = [];

/** The spec violations recorded since the last call. */
export function takeSpecViolations(): string[] {
  return violations.splice(0);
}

/** The real app, with every response (and every request it accepts) checked against the OpenAPI document. */
const mailers = new WeakMap<Express, Mailer>();

/** The mailer of an app testApp made: `drained()` waits for the mail it queued, instead of a pause. */
export function mailerOf(app: Express): Mailer {
  const mailer = mailers.get(app);
  if (!mailer) throw new Error('not an app from testApp');
  return mailer;
}

export function testApp(
  overrides: Record<string, string> = {},
  deps: { clock?: Clock; upstreamFetch?: typeof fetch; stores?: Stores } = {},
): Express {
  const config = testConfig(overrides);
  const logger = createLogger(config.logLevel);
  const mailer = createMailer(config, logger);
  const app = createApp({ config, logger, mailer, clock: deps.clock, upstreamFetch: deps.upstreamFetch, stores: deps.stores });
  const checked = express();
  checked.disable('x-powered-by');
  checked.use((req, res, next) => {
    // Routers rewrite req.url on the way in, so the path is taken now.
    const { method, path } = req;
    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    const keep = (chunk: unknown) => {
      if (Buffer.isBuffer(chunk) || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
      else if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk);
      return end(chunk, ...rest);
    }) as typeof res.end;
    res.once('finish', () => {
      const problem = responseProblem(method, path, res.statusCode, res.get('Content-Type'), Buffer.concat(chunks).toString('utf8'));
      if (problem) violations.push(problem);
      // A request the server accepted must be one the document allows (the body as the routes parsed
      // it). A redirect that carries an OAuth error back to the client is a refusal, not an acceptance.
      const refusedByRedirect = /[?#&]error=/.test(String(res.get('Location') ?? ''));
      const accepted =
        res.statusCode < 400 && !refusedByRedirect ? requestProblem(method, path, req.query, req.get('Content-Type'), req.body) : null;
      if (accepted) violations.push(accepted);
    });
    next();
  });
  checked.use(app);
  mailers.set(checked, mailer);
  return checked;
}
