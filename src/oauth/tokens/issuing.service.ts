// Issues every token this server hands out (code, refresh, password, client credentials, device and
// implicit) and builds every token response from one value, the IssuedToken: one write per token
// pair, `expires_in` read from the token itself, and the ID token a grant minted riding along. A token
// for a resource (RFC 8707) carries the resource's own scopes only, in the resource's format (an RFC
// 9068 JWT or opaque; opaque without a resource, formats/): a token its format can check alone (a
// client's own JWT, with no refresh token) is not written at all.
import { tokensIssued } from '../../common/metrics';
import { randomToken, sha256 } from '../../common/crypto';
import { throttled } from '../../db/sweeper';
import type { UserRecord } from '../../users/users.types';
import { displayName } from '../../users/users.types';
import { rolesOf } from '../../users/users.service';
import * as grantsService from '../grants/grants.service';
import { idTokenScopeClaims, type RequestedClaims } from '../oidc/claims.service';
import type { IdTokens } from '../oidc/id-tokens.service';
import type { ClientDocument } from '../clients/clients.model';
import { accessTokenAlgorithmFor } from '../clients/fapi.service';
import { DPOP_TOKEN_TYPE } from '../protocol';
import { scopeFor, type Resource } from '../resources/resources.service';
import type { AccessTokenClaims, AccessTokenFormats } from './formats';
import * as tokensDao from './tokens.dao';
import type { Actor, FamilyDocument, TokenDocument } from './tokens.model';

/** What a grant decided: for whom, which scope, and whether a refresh token comes with it. */
export interface GrantDecision {
  client: ClientDocument;
  /** The person the token acts for, already read; null for a client acting for itself. */
  person: UserRecord | null;
  scope: string[];
  /** Labels the tokens-issued metric. */
  grantType: string;
  refreshToken: boolean;
  /** Every token descending from one authorization shares it; a new one is made when absent. */
  familyId?: string;
  /**
   * The family exists already and these tokens continue it: its record as the grant read it (a
   * refresh: the new tokens may outlive it, or be its newest refreshable one), or `true` when they
   * can do neither (a token exchange's, which outlives nothing). Absent: a person's tokens start the
   * family (its record is written with them); a client's own need none.
   */
  continues?: FamilyDocument | true;
  /** When the person signed in for the authorization (OpenID Connect's auth_time). */
  authTime?: Date;
  /** How the person signed in (RFC 8176). */
  amr?: string[];
  /** What the authorization's `claims` parameter asked for: kept with the tokens for userinfo and renewals. */
  claims?: RequestedClaims;
  /** The browser session of the authorization (OpenID Connect `sid`). */
  sid?: string;
  /** RFC 9449: the DPoP key the tokens are bound to; absent for bearer tokens. */
  jkt?: string;
  /** RFC 8707: the resource the access token is for; absent for this server's own APIs, as opaque tokens. */
  resource?: Resource;
  /** RFC 8693 §4.1: who acts for the person (a token exchange's actor). */
  act?: Actor;
  /** RFC 8693: the access token may not outlive the token it was exchanged for (seconds from now). */
  maxLifetimeSeconds?: number;
}

/** A token pair as issued: the plain values exist only here and in the response. */
export interface IssuedToken {
  accessToken: string;
  /** Seconds until the access token expires, from its own expiry. */
  expiresIn: number;
  refreshToken?: string;
  scope: string[];
  person: UserRecord | null;
  /** Minted by the grant when the scope has openid and a person signed in. */
  idToken?: string;
  /** `DPoP` for a token bound to a key (RFC 9449 §5), `Bearer` otherwise; `N_A` for what is no access token (RFC 8693 §2.2.1, an ID-JAG). */
  tokenType: 'Bearer' | typeof DPOP_TOKEN_TYPE | 'N_A';
  /** RFC 8693 §2.2.1: what a token exchange issued. */
  issuedTokenType?: string;
  /** The access token's own scope when a resource was named (RFC 6749 §5.1 says it when it differs). */
  accessScope?: string[];
}

export interface Lifetimes {
  /** Seconds. */
  accessToken: number;
  refreshToken: number;
}

// Unused codes are few and short-lived: swept by query. Tokens go through the expiry journal (tokens.dao.ts).
const sweepExpired = throttled(60_000, tokensDao.deleteExpiredCodes);

/** What a grant's access token is minted from: its claims, in the format of its resource. */
function claimsOf(decision: GrantDecision, lifetimes: Lifetimes): AccessTokenClaims {
  const { resource, person } = decision;
  return {
    clientId: decision.client._id,
    userId: person?._id,
    scope: resource ? scopeFor(resource, decision.scope) : decision.scope,
    lifetimeSeconds: Math.min(resource?.accessTokenLifetime ?? lifetimes.accessToken, decision.maxLifetimeSeconds ?? Infinity),
    audience: resource?.id,
    // The profile's choice (FAPI 2.0: never RS256), else the resource's.
    algorithm: resource && accessTokenAlgorithmFor(decision.client, resource.signingAlg),
    authTime: decision.authTime,
    amr: decision.amr,
    jkt: decision.jkt,
    // RFC 9068 §2.2.3.1: the person's roles, when the application was given the roles scope.
    roles: person && decision.scope.includes('roles') ? rolesOf(person) : undefined,
    act: decision.act,
  };
}

/** The record of a pair: hashes only, the grant's scope and the access token's when narrower. */
function recordOf(
  decision: GrantDecision,
  claims: AccessTokenClaims,
  minted: { token: string; expiresAt: Date },
  refresh: string | undefined,
  refreshLifetime: number,
  now: Date,
): TokenDocument {
  const accessScope = decision.resource && claims.scope.length !== decision.scope.length ? [...claims.scope] : undefined;
  return {
    _id: sha256(minted.token),
    refreshTokenHash: refresh && sha256(refresh),
    accessTokenExpiresAt: minted.expiresAt,
    refreshTokenExpiresAt: refresh ? new Date(now.getTime() + refreshLifetime * 1000) : undefined,
    scope: decision.scope,
    clientId: decision.client._id,
    userId: claims.userId,
    familyId: decision.familyId ?? randomToken(16),
    issuedAt: now,
    authTime: decision.authTime,
    amr: decision.amr,
    claims: decision.claims,
    sid: decision.sid,
    jkt: decision.jkt,
    resource: decision.resource?.id,
    accessScope,
    act: decision.act,
  };
}

/**
 * A refresh token: the id of its pair's record (the access token's hash, which tells nothing of the
 * access token) and a random secret. The record is then read by its `_id`, which every engine answers
 * without reading the collection (docs/decisions.md, "Refresh tokens name their record").
 */
const refreshTokenOf = (recordId: string): string => `${recordId}.${randomToken()}`;

/**
 * A person's token lives while its family does (tokens.model.ts FamilyDocument): the first token of a
 * family is written with the family's record; a later one (a refresh) moves the family's end and
 * newest token. A client's own tokens have no family record (each is revoked alone).
 */
function familyOf(decision: GrantDecision, record: TokenDocument): Omit<FamilyDocument, '_id'> | undefined {
  if (decision.continues || record.userId === undefined) return undefined;
  return { newest: record.refreshTokenHash !== undefined ? record._id : undefined, until: tokensDao.expiryOf(record) };
}

export type TokenIssuer = (decision: GrantDecision, lifetimes: Lifetimes) => Promise<IssuedToken>;

/** Mints the pair, stores it when its format needs a record or a refresh token comes with it, and marks the person's connected application as in use. */
export function createTokenIssuer(formats: AccessTokenFormats): TokenIssuer {
  return async (decision, lifetimes) => {
    const now = new Date();
    const claims = claimsOf(decision, lifetimes);
    const minted = await formats.of(decision.resource?.format).mint(claims, now);
    const refreshToken = decision.refreshToken ? refreshTokenOf(sha256(minted.token)) : undefined;
    const recorded = minted.recorded || refreshToken !== undefined;
    const record = recorded ? recordOf(decision, claims, minted, refreshToken, lifetimes.refreshToken, now) : null;
    const { continues } = decision;
    await Promise.all([
      record && tokensDao.insertToken(record, familyOf(decision, record)),
      record && continues && continues !== true ? tokensDao.joinFamily(continues, record) : undefined,
      claims.userId ? grantsService.touch(claims.userId, decision.client._id) : undefined,
    ]);
    if (recorded) sweepExpired(now);
    tokensIssued.inc({ grant_type: decision.grantType });
    return {
      accessToken: minted.token,
      expiresIn: Math.round((minted.expiresAt.getTime() - now.getTime()) / 1000),
      refreshToken,
      scope: decision.scope,
      person: decision.person,
      tokenType: decision.jkt ? DPOP_TOKEN_TYPE : 'Bearer',
      accessScope: decision.resource ? [...claims.scope] : undefined,
    };
  };
}

/** POST /oauth/token (seed 001's variant B, and RFC 6749 §5.1). */
export function tokenResponse(issued: IssuedToken) {
  return {
    token_type: issued.tokenType,
    expires_in: issued.expiresIn,
    access_token: issued.accessToken,
    ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
    ...(issued.idToken ? { id_token: issued.idToken } : {}),
    ...(issued.accessScope ? { scope: issued.accessScope.join(' ') } : {}),
    ...(issued.issuedTokenType ? { issued_token_type: issued.issuedTokenType } : {}),
  };
}

/** POST /v1/oauth/token (seed 001's variant A): lower-case token type, scope, uid and info. */
export function v1TokenResponse(issued: IssuedToken & { person: UserRecord }) {
  return {
    access_token: issued.accessToken,
    token_type: 'bearer',
    expires_in: issued.expiresIn,
    refresh_token: issued.refreshToken,
    scope: (issued.accessScope ?? issued.scope).join(' '),
    uid: issued.person.uid,
    info: { name: displayName(issued.person), email: issued.person.email },
  };
}

/**
 * The implicit flow's fragment (RFC 6749 §4.2.2, OIDC Core §3.2.2.5): `token` is seed 001's name for
 * the access token, given only for response_type=token; an ID token alone comes without one.
 */
export function implicitResponse(issued: IssuedToken | null, idToken: string | undefined, seedName: boolean): Record<string, string> {
  const token = issued
    ? {
        access_token: issued.accessToken,
        ...(seedName ? { token: issued.accessToken } : {}),
        token_type: 'bearer',
        expires_in: String(issued.expiresIn),
        scope: (issued.accessScope ?? issued.scope).join(' '),
      }
    : {};
  return { ...token, ...(idToken ? { id_token: idToken } : {}) };
}

/** Signs ID tokens; absent on an endpoint that gives none (POST /v1/oauth/token). */
export type IdTokenSigner = Pick<IdTokens, 'sign'>;

/**
 * OpenID Connect: a person's token with the openid scope carries an ID token (a refresh gets a fresh
 * one). An access token comes with it, so the scopes' claims are for userinfo; the ID token holds
 * only those the `claims` parameter asked to find there (OIDC Core §5.4, §5.5).
 */
export async function withIdToken(
  signer: IdTokenSigner | null,
  issued: IssuedToken,
  client: ClientDocument,
  context: { authTime?: Date; amr?: string[]; nonce?: string; claims?: RequestedClaims; sid?: string },
): Promise<IssuedToken> {
  if (!signer || !issued.person || !issued.scope.includes('openid')) return issued;
  const { claims, ...rest } = context;
  const idToken = await signer.sign({
    user: issued.person,
    clientId: client._id,
    algorithm: client.metadata?.id_token_signed_response_alg,
    claims: [...idTokenScopeClaims(issued.scope), ...(claims?.id_token ?? [])],
    accessToken: issued.accessToken,
    ...rest,
  });
  return { ...issued, idToken };
}
