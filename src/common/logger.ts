// Structured JSON logs. Secrets are removed at the source: credentials in headers and bodies are
// redacted by path, and query strings are logged with sensitive parameter values masked.
import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config';

export type { Logger };

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.client_secret',
  '*.refreshToken',
  '*.accessToken',
  '*.access_token',
  '*.refresh_token',
  '*.token',
];

/** The request being handled, if any: request-logging.ts enters it for each request. */
export const requestContext = new AsyncLocalStorage<{ readonly requestId: string }>();

/**
 * Logs go to stdout in batches of at least 4 KiB, and at least every 500 ms so a quiet server's lines
 * are not held back: a write per request line was the largest single cost of a small request. Each
 * batch is written synchronously: an asynchronous write waits for the thread pool, and lines that
 * arrive meanwhile are joined onto a growing string that is copied again for each line (7.9 against
 * 4.1 us per access line; docs/benchmarks.md). Call logger.flush() before exiting.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: undefined,
    // The request id on every line written while a request is handled, whoever writes it.
    mixin: () => {
      const context = requestContext.getStore();
      return context ? { reqId: context.requestId } : {};
    },
  };
  return pino(options, destination ?? batchedStdout());
}

/** The process's one batched stdout: every logger writes through it, so one exit hook flushes them all. */
let stdout: DestinationStream | undefined;

function batchedStdout(): DestinationStream {
  // One per process (several apps in one process, the tests', would each add an exit listener).
  stdout ??= openBatchedStdout();
  return stdout;
}

function openBatchedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 500 });
  // pino flushes only asynchronous streams at exit: the last batch of a synchronous one is written here.
  process.once('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // stdout closed or gone: nowhere left to write.
    }
  });
  return stream;
}

// Variant A of the OAuth token endpoint accepts secrets in the query string, and OpenID Connect sends
// an ID token as id_token_hint, so no URL is logged raw.
const SECRET_QUERY_PARAMETERS = new Set([
  'client_secret',
  'code',
  'code_verifier',
  'password',
  'refresh_token',
  'access_token',
  'token',
  'state',
  'appid',
  // OpenID Connect and the device flow: an ID token (with the person's claims), device and user codes,
  // and the email a client passes as a sign-in hint.
  'id_token_hint',
  'device_code',
  'user_code',
  'login_hint',
]);

/** How deep a URL inside a parameter (`return_to=/device?user_code=...`) is looked into. */
const MAX_NESTING = 3;

/**
 * Returns the URL with the values of credential-bearing query parameters masked, also inside a
 * parameter whose value is itself a URL with a query (the sign-in page's return_to, say).
 */
export function redactUrl(url: string, depth = 0): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const params = new URLSearchParams(url.slice(queryStart + 1));
  const masked = [...params].map(([name, value]) => {
    const shown = SECRET_QUERY_PARAMETERS.has(name.toLowerCase())
      ? '[redacted]'
      : encodeURIComponent(depth < MAX_NESTING ? redactUrl(value, depth + 1) : value);
    return `${encodeURIComponent(name)}=${shown}`;
  });
  return `${url.slice(0, queryStart)}?${masked.join('&')}`;
}
