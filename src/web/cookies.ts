// The browser cookies this server sets for its pages (the session, the anonymous CSRF token): one rule
// for their names and flags. In production they are Secure, and on an https PUBLIC_URL they carry the
// `__Host-` prefix, which a browser accepts only from this exact host over https with Path=/ and no
// Domain: a sibling subdomain cannot toss one in (a planted session id, a known CSRF token). Outside
// production they stay plain, so a development server reached over http behind an https name works.
import type { CookieOptions } from 'express';
import type { Config } from '../config';

export interface BrowserCookies {
  /** The cookie's name on this deployment: `__Host-<base>` in production over https, `<base>` otherwise. */
  name(base: string): string;
  /** Secure in production (TRUST_PROXY tells express when a proxy terminated TLS). */
  readonly secure: boolean;
  /** The flags every such cookie carries: httpOnly, SameSite=Lax, Path=/, Secure as above. */
  readonly options: CookieOptions & { path: '/' };
}

export function browserCookies(config: Pick<Config, 'publicUrl' | 'isProduction'>): BrowserCookies {
  const secure = config.isProduction;
  const prefixed = secure && new URL(config.publicUrl).protocol === 'https:';
  return {
    name: (base) => (prefixed ? `__Host-${base}` : base),
    secure,
    options: { httpOnly: true, sameSite: 'lax', secure, path: '/' },
  };
}
