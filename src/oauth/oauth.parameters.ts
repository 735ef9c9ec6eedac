// Collects OAuth parameters from the query string and/or the body. RFC 6749 §3.1-3.2: a parameter
// sent more than once (even once in each place) is invalid_request, and so is one that is not a
// string or is absurdly long; empty values count as absent. RFC 8707 lets `resource` repeat; a token
// here is for one audience, so a second one is invalid_target (§2).
import type { Request } from 'express';
import { Refusal } from '../common/refusals';
import { maxLengthOf } from './protocol';

export type OAuthParameters = Record<string, string>;

/** A parameter problem: `invalid_request` on the OAuth endpoints, a page at the browser's (their presenters word it). */
const invalid = (description: string) => new Refusal('invalid', description, 'invalid_request');

export function collectParameters(req: Request, sources: readonly ('query' | 'body')[]): OAuthParameters {
  const parameters: OAuthParameters = {};
  for (const source of sources) addParameters(parameters, source === 'query' ? req.query : req.body);
  return parameters;
}

/** The parameters of a query string, checked as collectParameters checks a request's. */
export function parametersOf(search: URLSearchParams): OAuthParameters {
  const values: Record<string, string | string[]> = {};
  for (const [name, value] of search) values[name] = Object.hasOwn(values, name) ? ([] as string[]).concat(values[name], value) : value;
  return addParameters({}, values);
}

function addParameters(parameters: OAuthParameters, values: unknown): OAuthParameters {
  if (values === undefined || values === null) return parameters;
  if (typeof values !== 'object' || Array.isArray(values)) throw invalid('The request parameters must be an object of strings');
  for (const [name, value] of Object.entries(values)) {
    if (Array.isArray(value) || Object.prototype.hasOwnProperty.call(parameters, name)) {
      if (name === 'resource') throw new Refusal('invalid', 'Name one resource: a token here is for one audience', 'invalid_target');
      throw invalid(`Parameter ${name} is repeated`);
    }
    if (typeof value !== 'string') throw invalid(`Parameter ${name} must be a string`);
    if (value.length > maxLengthOf(name)) throw invalid(`Parameter ${name} is longer than ${maxLengthOf(name)} characters`);
    if (value !== '') parameters[name] = value;
  }
  return parameters;
}
