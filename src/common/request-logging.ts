// One JSON line per request when its response finishes (request id, method, redacted URL, client
// address, user agent, status and time), and the request's count and duration in the metrics.
// Headers and bodies are never logged, since they may carry credentials. Written on plain pino:
// pino-http's per-request child logger cost more than the rest of a small request's logging.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { redactUrl, requestContext, type Logger } from './logger';
import { httpRequestDuration, httpRequests } from './metrics';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The application logger, for errors met while handling this request. */
      log: Logger;
      /** The caller's X-Request-Id when it is a usable one, or one made here; sent back as X-Request-Id. */
      id: string;
    }
  }
}

/** Ids a proxy or a client may pass in: a UUID, a trace id, a short token. Anything else is replaced. */
const ACCEPTED_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;
const MAX_USER_AGENT_LENGTH = 256;

/** The route pattern that answered (/users/:userId), so the metrics' labels stay few; 'unmatched' for none. */
function routeOf(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  return typeof route?.path === 'string' ? `${req.baseUrl}${route.path}` : 'unmatched';
}

/**
 * The request's id, on every response (the probes' too, which are not logged): the caller's
 * X-Request-Id when it is a usable one, else a new UUID; sent back as X-Request-Id.
 */
export const requestIds: RequestHandler = (req, res, next) => {
  const offered = req.headers['x-request-id'];
  req.id = typeof offered === 'string' && ACCEPTED_REQUEST_ID.test(offered) ? offered : randomUUID();
  res.setHeader('X-Request-Id', req.id);
  next();
};

/** The access log and the request metrics; after requestIds. */
export function requestLogging(logger: Logger): RequestHandler {
  // Access lines hold only the fields built below (the URL already masked), so they skip the
  // redaction pass that every other log line gets.
  const accessLog = logger.child({}, { redact: [] });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    req.log = logger;
    // 'close' follows 'finish' on every response, and alone on an aborted one.
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : 499;
      const line = {
        reqId: req.id,
        req: {
          method: req.method,
          url: redactUrl(req.originalUrl),
          // req.ip honours TRUST_PROXY: the caller behind a trusted proxy, never a forged header.
          remoteAddress: req.ip,
          userAgent: req.headers['user-agent']?.slice(0, MAX_USER_AGENT_LENGTH),
        },
        res: { statusCode: status },
        responseTime: Number(process.hrtime.bigint() - started) / 1e6,
      };
      const route = routeOf(req);
      httpRequests.inc({ method: req.method, route, status });
      httpRequestDuration.observe({ method: req.method, route }, line.responseTime / 1000);
      if (status >= 500) accessLog.error(line, 'request failed');
      else accessLog.info(line, res.writableFinished ? 'request completed' : 'request aborted');
    });
    // Every line logged while this request is handled, by any logger, carries its id (see logger.ts).
    requestContext.run({ requestId: req.id }, next);
  };
}
