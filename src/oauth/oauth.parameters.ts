// Collects OAuth parameters from the query string and/or the body. RFC 6749 §3.1-3.2: a parameter
// sent more than once (even once in each place) is invalid_request, and so is one that is not a
// string or is absurdly long; empty values count as absent.
import type { Request } from 'express';
import { OAuthErrorResponse } from './oauth.errors';

const MAX_PARAMETER_LENGTH = 2048;

export type Parameters = Record<string, string>;

export function collectParameters(req: Request, sources: readonly ('query' | 'body')[]): Parameters {
  const parameters: Parameters = {};
  for (const source of sources) {
    const values: unknown = source === 'query' ? req.query : req.body;
    if (values === undefined || values === null) continue;
    if (typeof values !== 'object' || Array.isArray(values)) {
      throw new OAuthErrorResponse('invalid_request', 'The request parameters must be an object of strings');
    }
    for (const [name, value] of Object.entries(values)) {
      if (Array.isArray(value) || Object.prototype.hasOwnProperty.call(parameters, name)) {
        throw new OAuthErrorResponse('invalid_request', `Parameter ${name} is repeated`);
      }
      if (typeof value !== 'string') throw new OAuthErrorResponse('invalid_request', `Parameter ${name} must be a string`);
      if (value.length > MAX_PARAMETER_LENGTH) throw new OAuthErrorResponse('invalid_request', `Parameter ${name} is too long`);
      if (value !== '') parameters[name] = value;
    }
  }
  return parameters;
}
