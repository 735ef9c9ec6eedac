// The JSON body parser of every route. Bodies nested deeper than any request of this API needs are
// refused before they are parsed:
// thousands of levels overflow the stack of whatever walks the value later (validators, the error
// path). A single pass over the raw bytes, skipping strings, counts the nesting.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';

export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** body-parser's `verify` hook; the error's type maps to a 400 in the error handler. */
export function refuseDeepJson(_req: IncomingMessage, _res: ServerResponse, body: Buffer): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i += 1) {
    const byte = body[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (OPENERS.has(byte)) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) throw Object.assign(new Error('JSON nested too deeply'), { status: 400, type: 'entity.too.deep' });
    } else if (CLOSERS.has(byte)) {
      depth -= 1;
    }
  }
}

export const jsonBody = express.json({ limit: '100kb', verify: refuseDeepJson });
