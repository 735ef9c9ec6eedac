// Response headers for a server exposed to browsers: helmet's defaults with a content security
// policy the login and consent pages can live with, and CORS only for origins named in config.
import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import type { Config } from '../config';

export function securityHeaders(styleHash: string, publicUrl: string): RequestHandler {
  // Served over plain http (a LAN address, a container name, dev.test), upgrade-insecure-requests
  // would send the login form to an https port nothing listens on, and HSTS would pin the host to it.
  const https = publicUrl.startsWith('https:');
  return helmet({
    strictTransportSecurity: https,
    contentSecurityPolicy: {
      directives: {
        upgradeInsecureRequests: https ? [] : null,
        defaultSrc: ["'none'"],
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

/** CORS for the configured origins only; without any, no CORS headers at all. */
export function corsFor(config: Config): RequestHandler | null {
  if (config.corsOrigins.length === 0) return null;
  return cors({ origin: [...config.corsOrigins], credentials: false, maxAge: 600, exposedHeaders: ['X-Request-Id'] });
}
