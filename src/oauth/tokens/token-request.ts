// What every grant of the token endpoint is handed once the client is authenticated.
import * as usersService from '../../users/users.service';
import type { UserRecord } from '../../users/users.types';
import type { ClientDocument } from '../clients/clients.model';
import { invalidGrant, invalidRequest, OAuthErrorResponse } from '../oauth.errors';
import type { CheckedProof } from '../dpop/dpop.service';
import type { OAuthParameters } from '../oauth.parameters';
import { grantedScope, SCOPE_ERROR } from '../protocol';
import { extraScopes, named, scopeFor, type Resource, type ResourceStore } from '../resources/resources.service';
import type { IdTokenSigner, IssuedToken, Lifetimes, TokenIssuer } from './issuing.service';
import type { IdTokens } from '../oidc/id-tokens.service';
import type { LivenessContext } from './tokens.service';
import type { TrustedIssuers } from './trusted-issuers';
import type { Clock } from '../../common/clock';

export interface TokenRequest {
  /** Authenticated, read once for the whole request. */
  client: ClientDocument;
  parameters: OAuthParameters;
  /** The client address, for the sign-in budget of the password grant. */
  address: string;
  lifetimes: Lifetimes;
  /** null on the endpoint that gives no ID tokens. */
  idTokens: IdTokenSigner | null;
  /** The request's DPoP proof (RFC 9449), checked: what the tokens issued are bound to. */
  proof: CheckedProof | null;
  /** This server's issuer: the resource of its own APIs. */
  issuer: string;
  /** The app's registered resources. */
  resources: ResourceStore;
  /** Mints and records the tokens, in the format the resource takes. */
  issue: TokenIssuer;
  /** What token exchange and the JWT bearer grant read besides (absent on the endpoint without them). */
  agents?: AgentContext;
}

/** The events of grants that act for a person without them (docs/oauth.md, "Token exchange"). */
export type AgentEvent = 'token-exchanged' | 'assertion-accepted';

/** Token exchange (RFC 8693) and the JWT bearer grant (RFC 7523, ID-JAG): how they read tokens, sign, trust and tell. */
export interface AgentContext {
  idTokens: Pick<IdTokens, 'verifyIdToken' | 'signIdJag'>;
  liveness: Pick<LivenessContext, 'clients' | 'users' | 'cache' | 'formats'>;
  trusted: TrustedIssuers;
  /** What lifetimes and assertions' ages are measured by. */
  clock: Clock;
  record(userId: string, kind: AgentEvent, where: { address: string; clientId: string; detail: string }): Promise<void>;
}

/**
 * RFC 8707 §2.2: the resource the token is for. A grant with an authorization step (a code, a
 * refresh token) keeps the resource that step named: `resource` may repeat it, not change it. The
 * others name it here. An unknown or malformed one is `invalid_target`.
 */
export async function resourceOf(request: TokenRequest, authorized?: { resource?: string }): Promise<Resource | undefined> {
  const requested = request.parameters.resource;
  if (authorized && requested !== undefined && requested !== authorized.resource) {
    throw new OAuthErrorResponse('invalid_target', 'resource must be the one the authorization request named');
  }
  const found = await named({ publicUrl: request.issuer }, request.resources, authorized ? authorized.resource : requested);
  if (found && 'refused' in found) throw new OAuthErrorResponse('invalid_target', found.refused);
  return found;
}

/** A token for a resource carries some of its scopes; otherwise invalid_scope, checked before anything is spent. */
export function ensureScopeFor(resource: Resource | undefined, scope: readonly string[]): void {
  if (resource && scopeFor(resource, scope).length === 0) {
    throw new OAuthErrorResponse('invalid_scope', `${resource.id} accepts none of these scopes (it accepts ${resource.scopes.join(' ')})`);
  }
}

/** The scope a grant without an authorization step grants: this server's scopes and the resource's own. */
export function requestedScope(parameters: OAuthParameters, resource: Resource | undefined, allowed: readonly string[] = []): string[] {
  // `allowed` only when asked for: the default is this server's, or the resource's own scopes.
  const extra = extraScopes(resource);
  const scope = grantedScope(parameters.scope, parameters.scope === undefined ? extra : [...extra, ...allowed]);
  if (!scope) throw new OAuthErrorResponse('invalid_scope', SCOPE_ERROR);
  ensureScopeFor(resource, scope);
  return scope;
}

/** RFC 9449 §5 and §10: a grant bound to a key needs a proof by that key. */
export function ensureProofBy(jkt: string | undefined, proof: CheckedProof | null, what: string): void {
  if (jkt === undefined) return;
  if (!proof) throw new OAuthErrorResponse('invalid_dpop_proof', `${what} is bound to a DPoP key: send a DPoP proof made with it`);
  if (proof.jkt !== jkt) throw new OAuthErrorResponse('invalid_dpop_proof', `${what} is bound to another DPoP key`);
}

/** One grant type: a request in, an issued token out (or an RFC 6749 error thrown). */
export type GrantHandler = (request: TokenRequest) => Promise<IssuedToken>;

/** A parameter the grant cannot do without (RFC 6749 §5.2 invalid_request). */
export function required(parameters: OAuthParameters, name: string): string {
  const value = parameters[name];
  if (value === undefined) throw invalidRequest(`Missing parameter: ${name}`);
  return value;
}

/** The person a grant acts for, as they are now; a deleted one makes the grant invalid. */
export async function personOf(userId: string): Promise<UserRecord> {
  const person = await usersService.findById(userId);
  if (!person) throw invalidGrant('The user of this grant no longer exists');
  return person;
}
