// Responses that carry credentials or per-user state must never be cached (RFC 6749 §5.1).
import type { Response } from 'express';

export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

export function noStore(res: Response): Response {
  return res.set(NO_STORE);
}
