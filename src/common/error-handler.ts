// Maps every error to its wire format in one place, so routes and services only throw.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, ServiceUnavailableError } from './errors';
import { MAX_JSON_DEPTH } from './json-body';
import { isDatabaseUnavailable } from '../db/mongoose';
import { errorPage } from '../web/layout';
import { HTML_CONTENT_TYPE } from '../web/html';

/** body-parser's error types for a body the client got wrong, with the status and message to answer. */
const BODY_ERRORS: Record<string, [number, string]> = {
  'entity.parse.failed': [400, 'Malformed JSON in request body'],
  'entity.too.large': [413, 'Request body is larger than 100 kB'],
  'entity.verify.failed': [400, 'Request body could not be verified'],
  'entity.too.deep': [400, `JSON in the request body is nested more than ${MAX_JSON_DEPTH} levels deep`],
  'encoding.unsupported': [415, 'Unsupported content encoding'],
  'charset.unsupported': [415, 'Unsupported charset'],
  'request.aborted': [400, 'Request aborted'],
  'request.size.invalid': [400, 'Request size did not match Content-Length'],
  'stream.encoding.set': [500, 'Internal server error'],
};

/** Express's own client errors (a path that does not decode, say) carry a 4xx status to keep. */
function clientError(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/** The status and message for a request body the client got wrong, or undefined. */
export function bodyError(err: unknown): [number, string] | undefined {
  if (typeof err !== 'object' || err === null || !('type' in err)) return undefined;
  return BODY_ERRORS[String(err.type)];
}

/**
 * An OAuth error answer ({ error, error_description }) is logged at info with its code and reason,
 * so a developer sees why a request was refused; the description is ours and carries no secret.
 */
function logOAuthRefusal(req: Parameters<ErrorRequestHandler>[1], error: AppError): void {
  if (error.status >= 500 || typeof error.body !== 'object' || error.body === null) return;
  const { error: code, error_description: description } = error.body as Record<string, unknown>;
  if (typeof code === 'string' && typeof description === 'string')
    req.log?.info({ error: code, description, status: error.status }, 'OAuth request refused');
}

function send(res: Parameters<ErrorRequestHandler>[2], error: AppError): void {
  res.set(error.headers).status(error.status);
  if (error.body === undefined) res.end();
  else if (typeof error.body === 'string') res.send(error.body);
  else res.json(error.body);
}

/** 404: JSON for programs, a page for a browser (one that asks for HTML before JSON). */
export const notFoundHandler: RequestHandler = (req, res) => {
  if (req.accepts(['json', 'html']) === 'html') {
    res
      .status(404)
      .type(HTML_CONTENT_TYPE)
      .send(errorPage('Not found', 'Nothing is at this address. The start page, /, links to everything there is.'));
    return;
  }
  res.status(404).json({ error: 'Not found' });
};

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    req.log.error({ err }, 'error after the response started');
    res.destroy();
    return;
  }
  // An outage stays an outage when a feature wrapped it in an error of its own.
  if (isDatabaseUnavailable(err) || (err instanceof AppError && err.status >= 500 && isDatabaseUnavailable(err.cause))) {
    req.log.warn({ err }, 'database unavailable');
    send(res, new ServiceUnavailableError());
    return;
  }
  if (err instanceof AppError) {
    logOAuthRefusal(req, err);
    // A 5xx of our own making (a weather provider without a key, say) says all in its message; a
    // stack trace is logged only when it wraps an error from elsewhere.
    if (err.status >= 500) req.log.error(err.cause === undefined ? { error: err.message } : { err }, 'request failed');
    send(res, err);
    return;
  }
  const known = bodyError(err);
  if (known) {
    send(res, new AppError(known[0], { errors: [known[1]] }));
    return;
  }
  const clientStatus = clientError(err);
  if (clientStatus) {
    send(res, new AppError(clientStatus, { error: clientStatus === 400 ? 'Malformed request' : 'Request refused' }));
    return;
  }
  req.log.error({ err }, 'unhandled error');
  send(res, new AppError(500, { error: 'Internal server error' }));
};
