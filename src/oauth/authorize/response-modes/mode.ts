// What a response mode is made of: a carrier (how the values travel) and a handler (what values go),
// with what answering needs of the server.
import type { ClientDocument } from '../../clients/clients.model';
import type { SigningAlgorithm } from '../../protocol';
import type { Redirect } from '../authorization-request';

/** A carrier: the values, as name and value pairs, to the redirect URI. */
export type Carrier = (redirectUri: string, entries: [string, string][]) => Redirect;

/** Signs an authorization response for a client (id-tokens.service.ts signAuthorizationResponse). */
export type ResponseSigner = (values: Record<string, string>, clientId: string, algorithm?: SigningAlgorithm) => Promise<string>;

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

/** The values that are there, as name and value pairs. */
export const present = (values: Record<string, string | undefined>): [string, string][] =>
  Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined);
