// The authorization endpoint's rules, put together (RFC 6749 §4.1 and §4.2, PKCE per RFC 7636,
// OpenID Connect Core §3.1.2, RFC 9126 for pushed requests). Each part lives beside this file: the
// ordered checks of each entry point (checks/), how an answer travels (response-modes/), what comes
// before the consent page (consent.ts) and what an approval issues (issue.ts). The service returns
// what to do; the controllers turn it into a response.
import { systemClock, type Clock } from '../../common/clock';
import type { Config } from '../../config';
import type { ClientDocument } from '../clients/clients.model';
import type { OAuthParameters } from '../oauth.parameters';
import type { Consent, Redirect, Refusal, SignedIn } from './authorization-request';
import { AUTHORIZE_CHECKS, DEVICE_CHECKS, PUSH_CHECKS } from './checks';
import type { CheckDeps } from './checks/check';
import { beforeConsent, decide } from './consent';
import type { AuthorizationSigner, AuthorizeDeps } from './deps';
import { passedOrThrown, runChecks, runReview } from './review';

export function createAuthorizeService(
  config: Config,
  idTokens: AuthorizationSigner,
  backchannel: AuthorizeDeps['backchannel'],
  issue: AuthorizeDeps['issue'],
  stores: AuthorizeDeps['stores'],
  clock: Clock = systemClock,
) {
  const deps: AuthorizeDeps = {
    config,
    idTokens,
    backchannel,
    issue,
    stores,
    clock,
    answering: {
      issuer: config.publicUrl,
      sign: (values, clientId, algorithm) => idTokens.signAuthorizationResponse(values, clientId, algorithm),
    },
  };

  /**
   * An authorization request from a browser (or the same request again, after sign-in or at the
   * consent form). `signedIn` says whether a person is signed in to this browser (review.ts: a
   * stranger's client gets no error redirect for an anonymous visitor).
   */
  const review = (parameters: OAuthParameters, signedIn: boolean, address: string): Promise<Consent | Redirect | Refusal> =>
    runReview(AUTHORIZE_CHECKS, parameters, { signedIn, address }, deps, deps.answering);

  return {
    review,

    /** A request being pushed (POST /oauth/par, RFC 9126 §2.1) by the client that authenticated: answered in JSON. */
    reviewPushed: (parameters: OAuthParameters, client: ClientDocument, address: string) =>
      runChecks(PUSH_CHECKS, parameters, { address, client }, deps),

    beforeConsent: (request: Consent['request'], person: SignedIn | null) => beforeConsent(request, person, deps),

    /** The person's decision on the request its consent page showed (kept by the server, never re-sent by the browser). */
    async decide(parameters: OAuthParameters, decision: unknown, person: SignedIn, address: string) {
      const reviewed = await review(parameters, true, address);
      return reviewed.kind === 'consent' ? decide(reviewed.request, decision, person, deps) : reviewed;
    },
  };
}

/**
 * A device authorization request (RFC 8628 §3.1) by the client that authenticated, checked by the
 * device flow's list: the scope it may ask for, or the OAuth error thrown (answered in JSON).
 */
export async function deviceRequestScope(
  parameters: OAuthParameters,
  client: ClientDocument,
  address: string,
  deps: CheckDeps,
): Promise<string[]> {
  return passedOrThrown(await runChecks(DEVICE_CHECKS, parameters, { address, client }, deps)).request.scope!;
}

export type AuthorizeService = ReturnType<typeof createAuthorizeService>;
