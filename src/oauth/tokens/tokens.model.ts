// Issued tokens, authorization codes and spent refresh-token markers. Every code and token is kept only as a
// SHA-256 hash. Expiring records carry their expiry and are swept by query (no TTL on FerretDB).
import { Schema, model } from 'mongoose';
import type { RequestedClaims } from '../oidc/claims.service';

export interface TokenDocument {
  /** Hash of the access token. */
  _id: string;
  refreshTokenHash?: string;
  accessTokenExpiresAt: Date;
  refreshTokenExpiresAt?: Date;
  scope: string[];
  clientId: string;
  /** Absent for client_credentials tokens, which act for the client itself. */
  userId?: string;
  /** Every token descending from one authorization (a code, or a password grant) shares it. */
  familyId: string;
  issuedAt: Date;
  /** When the person signed in for the authorization this token descends from (OpenID Connect). */
  authTime?: Date;
  /** How the person signed in (RFC 8176), for renewed ID tokens. */
  amr?: string[];
  /** What the authorization's `claims` parameter asked for (OpenID Connect), for userinfo and renewed ID tokens. */
  claims?: RequestedClaims;
  /** The browser session the authorization came from (OpenID Connect `sid`), for renewed ID tokens. */
  sid?: string;
  /** RFC 9449: the thumbprint of the DPoP key the pair is bound to (`cnf.jkt`); absent for bearer tokens. */
  jkt?: string;
  /** RFC 8707: the registered resource the access token is for; absent for this server's own APIs. */
  resource?: string;
  /** The access token's scope when it is narrower than `scope` (a resource's own); `scope` stays the grant's. */
  accessScope?: string[];
  /** RFC 8693 §4.1: who acts for the person (a token exchange with an actor token), innermost last. */
  act?: Actor;
}

/** RFC 8693 §4.1 `act`: the acting party, and the one it acted for in turn. */
export interface Actor {
  sub: string;
  client_id?: string;
  act?: Actor;
}

export interface CodeDocument {
  /** Hash of the authorization code. */
  _id: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  scope: string[];
  expiresAt: Date;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  /** OpenID Connect: echoed in the ID token of the exchange. */
  nonce?: string;
  authTime?: Date;
  amr?: string[];
  claims?: RequestedClaims;
  sid?: string;
  /** RFC 9449 §10 `dpop_jkt`: the code may be exchanged only with a DPoP proof by this key. */
  dpopJkt?: string;
  /** RFC 8707: the resource the authorization request named. */
  resource?: string;
}

/**
 * A revoked JWT access token that no record stands for (a client's own, which costs no write when
 * issued): introspection answers `active: false` for it until it would have expired anyway.
 */
export interface RevokedJwtDocument {
  /** The token's jti. */
  _id: string;
  expiresAt: Date;
}

/**
 * A refresh token that has been rotated, or a code used (`code:<hash>`). Inserting the marker is the
 * use: the unique _id makes the second of two concurrent uses fail on MongoDB and FerretDB alike. It
 * also remembers the family, so a replay can revoke everything issued from the same authorization.
 */
export interface SpentDocument {
  _id: string;
  familyId: string;
  expiresAt: Date;
  /** A rotated refresh token: until then its client may present it again (graceful rotation). */
  graceUntil?: Date;
}

/**
 * What keeps a person's tokens of one authorization alive: every token descending from it (a code, a
 * password grant) names it (`familyId`), and is live only while it is there. Revoking the family is
 * deleting this one record by its `_id`, whatever the number of tokens (which then lie dead until they
 * expire and the journal sweeps them), where a delete by `familyId` would read the whole token
 * collection on FerretDB. It lives among the tokens, as `family:<familyId>` (no token's id has a
 * colon), so the family's first token and the family are written in one insert.
 */
export interface FamilyDocument {
  /** `family:<familyId>` (familyRecordId). */
  _id: string;
  /** The newest record with a refresh token: where a graceful replay continues (refresh-token.grant.ts). */
  newest?: string;
  /** When the family's last token expires: until then the family is kept. */
  until: Date;
}

const noVersion = { versionKey: false } as const;

const tokenSchema = new Schema<TokenDocument>(
  {
    _id: { type: String, required: true },
    refreshTokenHash: { type: String },
    accessTokenExpiresAt: { type: Date, required: true },
    refreshTokenExpiresAt: { type: Date },
    scope: { type: [String], required: true },
    clientId: { type: String, required: true },
    userId: { type: String },
    familyId: { type: String, required: true },
    issuedAt: { type: Date, required: true },
    authTime: { type: Date },
    amr: { type: [String], default: undefined },
    claims: { type: Schema.Types.Mixed },
    sid: { type: String },
    jkt: { type: String },
    resource: { type: String },
    accessScope: { type: [String], default: undefined },
    act: { type: Schema.Types.Mixed },
  },
  { ...noVersion, collection: 'oauth_tokens' },
);
// Records are read by _id only (a refresh token names its record; families are their own records,
// expiries a journal's): a secondary index would only slow every token's insert.

const codeSchema = new Schema<CodeDocument>(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    userId: { type: String, required: true },
    redirectUri: { type: String, required: true },
    scope: { type: [String], required: true },
    expiresAt: { type: Date, required: true },
    codeChallenge: { type: String },
    codeChallengeMethod: { type: String },
    nonce: { type: String },
    authTime: { type: Date },
    amr: { type: [String], default: undefined },
    claims: { type: Schema.Types.Mixed },
    sid: { type: String },
    dpopJkt: { type: String },
    resource: { type: String },
  },
  { ...noVersion, collection: 'oauth_codes' },
);
codeSchema.index({ clientId: 1 });
codeSchema.index({ expiresAt: 1 });

const spentSchema = new Schema<SpentDocument>(
  {
    _id: { type: String, required: true },
    familyId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
    graceUntil: { type: Date },
  },
  { ...noVersion, collection: 'oauth_spent' },
);

const revokedJwtSchema = new Schema<RevokedJwtDocument>(
  { _id: { type: String, required: true }, expiresAt: { type: Date, required: true } },
  { ...noVersion, collection: 'oauth_revoked_jwts' },
);

export const TokenModel = model<TokenDocument>('OAuthToken', tokenSchema);
export const CodeModel = model<CodeDocument>('OAuthCode', codeSchema);
export const SpentModel = model<SpentDocument>('OAuthSpent', spentSchema);
export const RevokedJwtModel = model<RevokedJwtDocument>('OAuthRevokedJwt', revokedJwtSchema);
/** The id of a family's record among the tokens. */
export const familyRecordId = (familyId: string): string => `family:${familyId}`;

export const FamilyModel = model<FamilyDocument>(
  'OAuthFamily',
  new Schema<FamilyDocument>(
    { _id: { type: String, required: true }, newest: { type: String }, until: { type: Date, required: true } },
    { ...noVersion, collection: 'oauth_tokens' },
  ),
);
