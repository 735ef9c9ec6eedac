// Express types a parsed body as `any`; handlers read fields through this and check their types.
import type { Request } from 'express';

/** A field of the parsed body, or undefined when there is no object body. */
export function bodyField(req: Request, name: string): unknown {
  const body: unknown = req.body;
  return body !== null && typeof body === 'object' && Object.hasOwn(body, name) ? (body as Record<string, unknown>)[name] : undefined;
}
