// What the authorization endpoint works with, written once: the request as its checks build it
// (checks/), what a review decides (consent, a redirect back, a refusal on a page of ours), and who is
// signed in. The checks, the response modes and the consent steps all speak these types.
import type { ClientDocument } from '../clients/clients.model';
import type { RequestedClaims } from '../oidc/claims.service';
import type { OAuthParameters } from '../oauth.parameters';
import type { PkceMethod, ResponseMode, ResponseType } from '../protocol';
import type { Resource } from '../resources/resources.service';

export interface AuthorizationRequest {
  client: ClientDocument;
  redirectUri: string;
  responseType: ResponseType;
  responseMode: ResponseMode;
  scope: string[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: PkceMethod;
  /** OpenID Connect `prompt`, as a set of values. */
  prompt: string[];
  /** Seconds since the person signed in after which they must sign in again. */
  maxAge?: number;
  loginHint?: string;
  /** What the `claims` parameter asked for (OIDC Core §5.5). */
  claims?: RequestedClaims;
  /** OpenID Connect `acr_values`: the classes the client would like, in order of preference. */
  acrValues?: string[];
  /** The request_uri of a pushed request (RFC 9126) this request came from: used up when it is answered. */
  pushedUri?: string;
  /** RFC 9449 §10 `dpop_jkt`: the code may be exchanged only with a DPoP proof by this key. */
  dpopJkt?: string;
  /** RFC 8707: the resource (API) the tokens are for. */
  resource?: Resource;
}

/** A request that may go on to the consent page. */
export interface Consent {
  kind: 'consent';
  request: AuthorizationRequest;
  /** The parameters as reviewed (a request object's applied): what a return after sign-in carries. */
  parameters: OAuthParameters;
}

/**
 * Back to the client, with a result or an error: a redirect, or for response_mode=form_post a page
 * that posts the values to the redirect URI.
 */
export type Redirect = { kind: 'redirect'; location: string } | { kind: 'form_post'; action: string; fields: Record<string, string> };

/** Refused on a page of this server: there is no client address it is safe to send the browser to. */
export interface Refusal {
  kind: 'refusal';
  title: string;
  message: string;
  /** The protocol's error code, for an endpoint that answers it otherwise (PAR answers in JSON). */
  error?: string;
}

export const refusal = (title: string, message: string, error?: string): Refusal => ({
  kind: 'refusal',
  title,
  message,
  ...(error && { error }),
});

/** Who is signed in, and when they signed in. */
export interface SignedIn {
  userId: string;
  authTime?: Date;
  /** How the person signed in (RFC 8176 values). */
  amr?: string[];
  /** The browser session's OpenID Connect `sid` (back-channel logout). */
  sid?: string;
}
