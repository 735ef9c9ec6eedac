// How an authorization response travels back to the client: one module per carrier, each answering a
// result and an error alike, chosen from a table by the request's response mode (checks/response.ts
// settles which). Plain carriers add RFC 9207's `iss`; the JARM ones sign every value (`iss`, `aud`
// and `exp` within) into one `response` parameter.
import type { ClientDocument } from '../../clients/clients.model';
import type { ResponseMode } from '../../protocol';
import type { Redirect } from '../authorization-request';
import { formPost } from './form-post';
import { fragment } from './fragment';
import { signed, type ResponseSigner } from './jarm';
import { query } from './query';

/** A carrier: the values, as name and value pairs, to the redirect URI. */
export type Carrier = (redirectUri: string, entries: [string, string][]) => Redirect;

/** What answering needs of the server: its issuer, and how it signs JARM responses. */
export interface AnswerContext {
  issuer: string;
  sign: ResponseSigner;
}

/** Answers a request's redirect URI with these values (undefined ones left out). */
export type ResponseModeHandler = (
  target: { redirectUri: string; client: ClientDocument },
  values: Record<string, string | undefined>,
  context: AnswerContext,
) => Promise<Redirect>;

const present = (values: Record<string, string | undefined>) =>
  Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined);

/** The values as they are, with `iss` (RFC 9207). */
const plain =
  (carrier: Carrier): ResponseModeHandler =>
  async ({ redirectUri }, values, { issuer }) =>
    carrier(redirectUri, [...present(values), ['iss', issuer]]);

export const RESPONSE_MODE_HANDLERS: Readonly<Record<ResponseMode, ResponseModeHandler>> = {
  query: plain(query),
  fragment: plain(fragment),
  form_post: plain(formPost),
  'query.jwt': signed(query),
  'fragment.jwt': signed(fragment),
  'form_post.jwt': signed(formPost),
};

/** Answers with the request's own response mode; an error names itself for endpoints that answer otherwise. */
export async function answer(
  request: { redirectUri: string; client: ClientDocument; responseMode: ResponseMode },
  values: Record<string, string | undefined>,
  context: AnswerContext,
): Promise<Redirect> {
  const redirect = await RESPONSE_MODE_HANDLERS[request.responseMode](request, values, context);
  return values.error === undefined
    ? redirect
    : { ...redirect, error: { error: values.error, error_description: values.error_description } };
}

export type { ResponseSigner } from './jarm';
