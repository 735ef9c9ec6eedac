// One JSON line per request when its response finishes: id, method, redacted URL, status and time.
// Headers and bodies are never logged, since they may carry credentials. Written on plain pino:
// pino-http's per-request child logger cost more than the rest of a small request's logging.
import type { RequestHandler } from 'express';
import { redactUrl, type Logger } from './logger';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The application logger, for errors met while handling this request. */
      log: Logger;
      id: number;
    }
  }
}

export function requestLogging(logger: Logger): RequestHandler {
  // Access lines hold only the fields built below (the URL already masked), so they skip the
  // redaction pass that every other log line gets.
  const accessLog = logger.child({}, { redact: [] });
  let lastId = 0;
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    req.log = logger;
    req.id = ++lastId;
    // 'close' follows 'finish' on every response, and alone on an aborted one.
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : 499;
      const line = {
        req: { id: req.id, method: req.method, url: redactUrl(req.originalUrl) },
        res: { statusCode: status },
        responseTime: Number(process.hrtime.bigint() - started) / 1e6,
      };
      if (status >= 500) accessLog.error(line, 'request failed');
      else accessLog.info(line, res.writableFinished ? 'request completed' : 'request aborted');
    });
    next();
  };
}
