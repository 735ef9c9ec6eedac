// Response headers for a server exposed to browsers: helmet's defaults with a content security
// policy the login and consent pages can live with, and CORS only for origins named in config.
import { ownScriptsSource } from '../web/scripts';
import cors from 'cors';
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { Config } from '../config';

/**
 * Every response gets nosniff; an HTML page also gets the pages' headers (CSP, HSTS over https,
 * frame and cross-origin policies), added as its head goes out. A JSON or text answer does not: a
 * program reading it has no use for them, and they would triple the size of its headers.
 */
export function securityHeaders(styleHash: string, publicUrl: string): RequestHandler {
  const pageHeaders = pageSecurityHeaders(styleHash, publicUrl);
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: unknown[]) {
      if (String(res.getHeader('Content-Type') ?? '').startsWith('text/html')) {
        // A page that set its own policy (the API reference) keeps it.
        const own = res.getHeader('Content-Security-Policy');
        pageHeaders(req, res, () => undefined);
        if (own !== undefined) res.setHeader('Content-Security-Policy', own);
      }
      return (writeHead as (...a: unknown[]) => typeof res).apply(this, args);
    } as typeof res.writeHead;
    next();
  };
}

function pageSecurityHeaders(styleHash: string, publicUrl: string) {
  // Served over plain http (a LAN address, a container name, dev.test), upgrade-insecure-requests
  // would send the login form to an https port nothing listens on, and HSTS would pin the host to it.
  const https = publicUrl.startsWith('https:');
  return helmet({
    strictTransportSecurity: https,
    contentSecurityPolicy: {
      directives: {
        upgradeInsecureRequests: https ? [] : null,
        defaultSrc: ["'none'"],
        // Scripts and fetches only on the pages that run this server's own (web/scripts.ts: the
        // passkey buttons); every other page runs none. One directive each, made here per page.
        scriptSrc: [(_req, res) => ownScriptsSource(res as Response)],
        connectSrc: [(_req, res) => ownScriptsSource(res as Response)],
        // The pages' one inline stylesheet is allowed by its hash, nothing else inline.
        styleSrc: [`'sha256-${styleHash}'`],
        // Avatars come from the identity provider.
        imgSrc: ["'self'", 'https:', 'data:'],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        // No form-action: Chromium applies it to the redirect after the consent form, which must
        // reach the client's registered redirect_uri on another origin.
        formAction: null,
      },
    },
  });
}

/**
 * CORS for the configured origins only; without any, no CORS headers at all. Paths that have a CORS
 * policy of their own (`ownPolicy`: the OpenID provider's browser-facing endpoints) are left to it.
 */
export function corsFor(config: Config, ownPolicy: (path: string) => boolean): RequestHandler | null {
  if (config.corsOrigins.length === 0) return null;
  const configured = cors({ origin: [...config.corsOrigins], credentials: false, maxAge: 600, exposedHeaders: ['X-Request-Id'] });
  return (req, res, next) => (ownPolicy(req.path) ? next() : configured(req, res, next));
}
