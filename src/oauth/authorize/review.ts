// Runs an entry point's checks (checks/index.ts) over a request, in order: the first refusal or error
// ends the review. An error goes back to the client its own way (its response mode, with state and
// iss), unless a stranger's client would be sending an anonymous visitor somewhere: a client
// registered by anyone (it has an owner) is not trusted with that visitor's error redirect, so the
// error is told on a page of ours instead (RFC 9700 §4.11.2: otherwise the endpoint is an open
// redirector).
import type { OAuthParameters } from '../oauth.parameters';
import { refusal, type AuthorizationRequest, type Consent, type Redirect, type Refusal } from './authorization-request';
import type { Check, CheckDeps, CheckFailure, Review } from './checks/check';
import { answer, type AnswerContext } from './response-modes';

/** Where a request comes from: who is signed in in this browser, its address, whether it is being pushed. */
export interface ReviewSource {
  signedIn: boolean;
  address: string;
  pushing?: boolean;
}

/** An error for the client, at its redirect URI (or on a page, when it cannot be trusted with it). */
async function failed(review: Review, failure: CheckFailure, context: AnswerContext): Promise<Redirect | Refusal> {
  const client = review.client!;
  if (!review.signedIn && client.ownerId !== undefined) {
    return refusal('Invalid authorization request', `${client.name} sent an invalid request (${failure.error}): ${failure.description}`);
  }
  const { redirectUri, responseMode, state } = review.request;
  return answer(
    { redirectUri: redirectUri!, client, responseMode: responseMode ?? 'query' },
    { error: failure.error, error_description: failure.description, state },
    context,
  );
}

export async function runReview(
  checks: readonly Check[],
  parameters: OAuthParameters,
  source: ReviewSource,
  deps: CheckDeps,
  context: AnswerContext,
): Promise<Consent | Redirect | Refusal> {
  const review: Review = { ...source, pushing: source.pushing ?? false, parameters, signedObject: false, request: {} };
  for (const check of checks) {
    const outcome = await check(review, deps);
    if (!outcome) continue;
    return 'kind' in outcome ? outcome : failed(review, outcome, context);
  }
  // A pushed request's return (to sign-in, a step-up, the consent form) carries its request_uri, so
  // every return finds it again (RFC 9126 §4).
  const kept = review.pushedUri === undefined ? review.parameters : { client_id: review.client!._id, request_uri: review.pushedUri };
  return { kind: 'consent', request: review.request as AuthorizationRequest, parameters: kept };
}
