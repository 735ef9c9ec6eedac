// Runs an entry point's checks (checks/index.ts) over a request, in order: the first refusal or
// failure ends it. Each entry point answers a failure its own way: PAR and the device flow in JSON,
// the authorization endpoint back at the redirect URI in the request's own mode (with state and
// iss), unless a stranger's client would be sending an anonymous visitor somewhere: a client
// registered by anyone (it has an owner) is not trusted with that visitor's error redirect, so the
// error is told on a page of ours instead (RFC 9700 §4.11.2: otherwise the endpoint is an open
// redirector).
import type { ClientDocument } from '../clients/clients.model';
import { OAuthErrorResponse } from '../oauth.errors';
import type { OAuthParameters } from '../oauth.parameters';
import { refusal, type AuthorizationRequest, type Consent, type Redirect, type Refusal } from './authorization-request';
import type { Check, CheckDeps, CheckFailure, Review } from './checks/check';
import { answer, type AnswerContext } from './response-modes';

/** Where a request comes from: the client address, and the client when it authenticated already (PAR, the device flow). */
export interface ReviewSource {
  address: string;
  client?: ClientDocument;
}

/** What a run of checks ends with: all passed, a failure for the client, or a refusal on a page of ours. */
export type Checked = { kind: 'passed'; review: Review } | { kind: 'failed'; review: Review; failure: CheckFailure } | Refusal;

export async function runChecks(
  checks: readonly Check[],
  parameters: OAuthParameters,
  { client, address }: ReviewSource,
  deps: CheckDeps,
): Promise<Checked> {
  const review: Review = { address, parameters, signedObject: false, client, request: { client } };
  for (const check of checks) {
    const outcome = await check(review, deps);
    if (!outcome) continue;
    return 'kind' in outcome ? outcome : { kind: 'failed', review, failure: outcome };
  }
  return { kind: 'passed', review };
}

/** For the endpoints that answer in JSON (PAR, the device flow): the review that passed, or its error thrown. */
export function passedOrThrown(checked: Checked): Review {
  if (checked.kind === 'passed') return checked.review;
  if (checked.kind === 'failed') throw new OAuthErrorResponse(checked.failure.error, checked.failure.description);
  throw new OAuthErrorResponse(checked.error ?? 'invalid_request', `${checked.title}: ${checked.message}`);
}

/** The parameters a passed review goes on with: a pushed request's return carries only its request_uri (RFC 9126 §4). */
const keptParameters = ({ pushedUri, parameters, client }: Review): OAuthParameters =>
  pushedUri === undefined ? parameters : { client_id: client!._id, request_uri: pushedUri };

/** An error for the client, at its redirect URI (or on a page, when it cannot be trusted with it). */
function failed(review: Review, failure: CheckFailure, signedIn: boolean, context: AnswerContext): Promise<Redirect> | Refusal {
  const client = review.client!;
  if (!signedIn && client.ownerId !== undefined) {
    return refusal('Invalid authorization request', `${client.name} sent an invalid request (${failure.error}): ${failure.description}`);
  }
  const { redirectUri, responseMode, state } = review.request;
  return answer(
    { redirectUri: redirectUri!, client, responseMode: responseMode ?? 'query' },
    { error: failure.error, error_description: failure.description, state },
    context,
  );
}

/**
 * A browser's authorization request: to the consent page, back to the client with an error, or
 * refused on a page. `signedIn`: someone is signed in to this browser.
 */
export async function runReview(
  checks: readonly Check[],
  parameters: OAuthParameters,
  source: ReviewSource & { signedIn: boolean },
  deps: CheckDeps,
  context: AnswerContext,
): Promise<Consent | Redirect | Refusal> {
  const checked = await runChecks(checks, parameters, source, deps);
  if (checked.kind === 'refusal') return checked;
  if (checked.kind === 'failed') return failed(checked.review, checked.failure, source.signedIn, context);
  return { kind: 'consent', request: checked.review.request as AuthorizationRequest, parameters: keptParameters(checked.review) };
}
