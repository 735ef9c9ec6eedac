// A response body that changes rarely (discovery, the JWK Set, GET /hello), made once with its ETag and
// its response headers, and sent as it is: a request costs no stringify, no hashing and no header building.
import { JSON_CONTENT_TYPE } from './content-types';
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';

export interface StaticDocument {
  /** A string: Node sends the head and a string body in one write, a Buffer body in a second one. */
  readonly body: string;
  /** Strong: the same bytes on every instance. */
  readonly etag: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A 304's: the same, less the body's type and length. */
  readonly notModifiedHeaders: Readonly<Record<string, string>>;
}

/** A JSON document; `headers`: what its responses carry besides its type, length and ETag (Cache-Control, say). */
export function staticDocument(value: unknown, headers: Record<string, string> = {}): StaticDocument {
  return staticBody(JSON.stringify(value), JSON_CONTENT_TYPE, headers);
}

export function staticBody(text: string, contentType: string, headers: Record<string, string> = {}): StaticDocument {
  const body = text;
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  const notModifiedHeaders = { ...headers, ETag: etag, 'X-Content-Type-Options': 'nosniff' };
  return {
    body,
    etag,
    headers: { ...notModifiedHeaders, 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)) },
    notModifiedHeaders,
  };
}

/** RFC 9110 §13.1.2: If-None-Match matches by weak comparison, or `*` matches any. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || (trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === etag;
  });
}

/** 200 with the document (Node leaves the body out for HEAD), or 304 when the client already has it. */
export function sendStatic(req: Request, res: Response, document: StaticDocument): void {
  if (matches(req.headers['if-none-match'], document.etag)) {
    res.writeHead(304, document.notModifiedHeaders).end();
    return;
  }
  res.writeHead(200, document.headers).end(document.body);
}

/** The same document with more headers (its CORS headers, say), made once per document. */
export function withHeaders(extra: Readonly<Record<string, string>>): (document: StaticDocument) => StaticDocument {
  const made = new WeakMap<StaticDocument, StaticDocument>();
  return (document) => {
    let derived = made.get(document);
    if (!derived) {
      derived = {
        ...document,
        headers: { ...document.headers, ...extra },
        notModifiedHeaders: { ...document.notModifiedHeaders, ...extra },
      };
      made.set(document, derived);
    }
    return derived;
  };
}

/** Where a path's document comes from: a constant, or one that changes (the JWK Set on a key rotation). */
export type StaticSource = () => StaticDocument | Promise<StaticDocument>;

/**
 * GET and HEAD of these exact paths, answered ahead of the routers: a map lookup instead of a walk
 * through them. The request metrics name the path as its route.
 */
export function staticRoutes(routes: ReadonlyMap<string, StaticSource>): RequestHandler & { staticPaths: readonly string[] } {
  const handler: RequestHandler = (req, res, next) => {
    const source = req.method === 'GET' || req.method === 'HEAD' ? routes.get(req.path) : undefined;
    if (source === undefined) return next();
    // What the router sets when a route answers; the request log reads it (request-logging.ts).
    req.route = { path: req.path };
    const document = source();
    if (document instanceof Promise) document.then((ready) => sendStatic(req, res, ready), next);
    else sendStatic(req, res, document);
  };
  // For whoever lists the app's routes (the OpenAPI document's test).
  return Object.assign(handler, { staticPaths: [...routes.keys()] });
}
