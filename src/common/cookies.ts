// Reading one cookie and comparing signed values, for the few cookies the server signs itself (the
// CSRF token, a provider sign-in's state) rather than keeping in a session.
import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

export function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** Constant-time equality of two texts (a signature against the expected one). */
export function sameText(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
