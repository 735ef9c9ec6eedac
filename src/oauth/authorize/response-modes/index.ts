// How an authorization response travels back to the client: one module per carrier, each answering a
// result and an error alike, chosen from a table by the request's response mode (checks/response.ts
// settles which). Plain carriers add RFC 9207's `iss`; the JARM ones sign every value (`iss`, `aud`
// and `exp` within) into one `response` parameter.
import type { ClientDocument } from '../../clients/clients.model';
import type { ResponseMode } from '../../protocol';
import type { Redirect } from '../authorization-request';
import { formPost } from './form-post';
import { fragment } from './fragment';
import { signed } from './jarm';
import { present, type AnswerContext, type Carrier, type ResponseModeHandler } from './mode';
import { query } from './query';

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

/** Answers with the request's own response mode. */
export function answer(
  request: { redirectUri: string; client: ClientDocument; responseMode: ResponseMode },
  values: Record<string, string | undefined>,
  context: AnswerContext,
): Promise<Redirect> {
  return RESPONSE_MODE_HANDLERS[request.responseMode](request, values, context);
}

export type { AnswerContext, ResponseSigner } from './mode';
