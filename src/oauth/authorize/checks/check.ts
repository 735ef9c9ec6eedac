// An authorization request is reviewed by an ordered list of small named checks (checks/index.ts has
// the lists of each entry point: the authorization endpoint and PAR). Each check reads the request as
// the checks before it left it, adds what it settles, and either lets it go on or refuses it: on a page
// of ours (a Refusal: no redirect URI is known to be safe yet) or with an error for the client (a
// CheckFailure, sent back the request's own way).
import type { Clock } from '../../../common/clock';
import type { Config } from '../../../config';
import type { Stores } from '../../../stores';
import type { ClientDocument } from '../../clients/clients.model';
import type { OAuthParameters } from '../../oauth.parameters';
import type { AuthorizationRequest, Refusal } from '../authorization-request';

/** What the checks read of the server. */
export interface CheckDeps {
  config: Config;
  stores: Pick<Stores, 'clients' | 'clientKeySets' | 'resources'>;
  clock: Clock;
}

/** An error for the client: told at its redirect URI (or in JSON, at PAR). */
export interface CheckFailure {
  error: string;
  description: string;
}

/** The request under review, as the checks so far have left it. */
export interface Review {
  /** The client address the request came from (what a request_uri's fetches count against). */
  address: string;
  /** The request's parameters: the query's or form's, then a pushed request's or a request object's. */
  parameters: OAuthParameters;
  client?: ClientDocument;
  /** The request_uri of the pushed request whose parameters these are. */
  pushedUri?: string;
  /** A request_uri that looks like a pushed one and is not (unknown, expired, used, another client's). */
  pushedUnknown?: string;
  /** The parameters came in a signed request object (RFC 9101 §10.5). */
  signedObject: boolean;
  /** A request object that could not be read: told once the redirect URI is known. */
  objectRefused?: CheckFailure;
  /** What the response checks read before they decide (settleResponse). */
  response?: { requestedType?: string; known: boolean; requestedMode?: string; signedMode: boolean };
  /** The request as settled so far. */
  request: Partial<AuthorizationRequest>;
}

export type CheckOutcome = void | CheckFailure | Refusal;

export type Check = (review: Review, deps: CheckDeps) => CheckOutcome | Promise<CheckOutcome>;

/** An invalid_request for the client. */
export const invalid = (description: string): CheckFailure => ({ error: 'invalid_request', description });

/** Outside production a refusal page also says what a developer needs to fix the request. */
export const developerDetail = (config: Pick<Config, 'isProduction'>, text: string): string => (config.isProduction ? '' : ` ${text}`);
