// An access-token format is a strategy: how a token is minted, and how a token of that format is
// read back into the grant it carries. The formats (opaque, RFC 9068 JWT) are tried in turn when a
// token comes back, so no caller asks what a token looks like.
import type { SigningAlgorithm } from '../../protocol';
import type { Actor, TokenDocument } from '../tokens.model';

/** What an access token is minted for. */
export interface AccessTokenClaims {
  clientId: string;
  /** The person; absent for a client acting for itself (then a JWT's `sub` is the client, RFC 9068 §2.2). */
  userId?: string;
  scope: readonly string[];
  /** Seconds. */
  lifetimeSeconds: number;
  /** The resource it is for (a JWT's `aud`); a format that carries no claims needs none. */
  audience?: string;
  /** How a JWT is signed (the resource's algorithm, or a profile's). */
  algorithm?: SigningAlgorithm;
  authTime?: Date;
  amr?: string[];
  /** RFC 9449 §6.1: the DPoP key it is bound to. */
  jkt?: string;
  /** RFC 9068 §2.2.3.1: the person's roles (with the roles scope). */
  roles?: string[];
  /** RFC 8693 §4.1: who acts for the person. */
  act?: Actor;
}

/** A minted token: the value exists only here and in the response. */
export interface MintedAccessToken {
  token: string;
  expiresAt: Date;
  /**
   * Whether checking it needs its record: always for an opaque token; a JWT acting for a person too
   * (revocation, their list of applications); a client's own JWT is checked by its signature alone.
   */
  recorded: boolean;
}

/** What a live access token lets its bearer do at this server's own APIs. */
export interface AccessGrant {
  scope: string[];
  clientId: string;
  /** Absent for a client acting for itself. */
  userId?: string;
  /** RFC 9449: the DPoP key it is bound to. */
  jkt?: string;
  /** What the authorization's `claims` parameter asked userinfo for. */
  claims?: TokenDocument['claims'];
  issuedAt: Date;
}

/** A token that says everything of itself (a verified JWT): what revocation and introspection know without a record. */
export interface SelfContainedToken {
  audience: string[];
  clientId: string;
  userId?: string;
  scope: string[];
  issuedAt: Date;
  expiresAt: Date;
  jti: string;
  jkt?: string;
}

/** The lookups a format reads a token back with (cached by tokens.service). */
export interface TokenRecords {
  /** The record of an access token, when it is known and unexpired. */
  live(token: string): Promise<TokenDocument | null>;
  /** Whether a self-contained token with no record was revoked. */
  revoked(jti: string): Promise<boolean>;
}

export interface AccessTokenFormat {
  mint(claims: AccessTokenClaims, now: Date): Promise<MintedAccessToken>;
  /**
   * The grant a token of this format carries for `audience`, live as far as the token and its
   * record go (the person and client are the guard's to check); null when it is of this format but
   * not live or not for `audience`; undefined when it is not of this format at all.
   */
  grant(token: string, audience: string, records: TokenRecords): Promise<AccessGrant | null | undefined>;
  /** A verified token of this format that has no record (a client's own JWT); null otherwise. */
  unrecorded(token: string): Promise<SelfContainedToken | null>;
}
