// Registered client applications. The secret is kept only as a SHA-256 hash; public clients
// (token_endpoint_auth_method `none`, RFC 8252 native and browser apps) have none.
import { Schema, model } from 'mongoose';
import type { Sealed } from '../../common/crypto';
import type { ApplicationType, ClientAuthMethod, FAPI_PROFILES, GrantType, SigningAlgorithm } from '../protocol';

/**
 * Registration metadata (RFC 7591 §2, OpenID Connect Dynamic Client Registration §2) kept under its
 * own names, as registered: what the consent page shows, and how the client signs and is signed for.
 */
export interface RegisteredMetadata {
  /** OIDC Dynamic Client Registration §2, when the client stated it (web when absent). */
  application_type?: ApplicationType;
  /** RFC 7591 §2: the scope values it said it will ask for. */
  scope?: string;
  logo_uri?: string;
  policy_uri?: string;
  tos_uri?: string;
  /** Its public keys, given at registration (RFC 7591 §2), or where to fetch them. */
  jwks?: { keys: Record<string, unknown>[] };
  jwks_uri?: string;
  /** What its client assertions (private_key_jwt, client_secret_jwt) must be signed with, when it said. */
  token_endpoint_auth_signing_alg?: string;
  /** What its request objects must be signed with (`none`: unsigned); absent: any supported, unsigned included. */
  request_object_signing_alg?: string;
  /** Where its request objects by reference may be (OIDC Core §6.2); the only request_uri values it may send. */
  request_uris?: string[];
  /** RFC 9126 §6: its authorization requests must be pushed first (POST /oauth/par). */
  require_pushed_authorization_requests?: boolean;
  /** RFC 9101 §10.5: its authorization requests must be signed request objects (`request`, `request_uri`). */
  require_signed_request_object?: boolean;
  /** FAPI 2.0 Security Profile: its rules apply to this client (protocol.ts FAPI_*). */
  fapi_profile?: (typeof FAPI_PROFILES)[number];
  /** OpenID Connect Back-Channel Logout: where logout tokens are posted, and whether it needs `sid` (always sent). */
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
  /** How its ID tokens are signed (RS256 when absent). */
  id_token_signed_response_alg?: SigningAlgorithm;
  /** Present: userinfo answers it with a JWT signed so (OIDC Core §5.3.2); absent: plain JSON. */
  userinfo_signed_response_alg?: SigningAlgorithm;
  /** JARM: how its signed authorization responses are signed (RS256 when absent). */
  authorization_signed_response_alg?: SigningAlgorithm;
  /** OIDC Core §4: where this server sends a person to start a sign-in at the client (with `iss`). */
  initiate_login_uri?: string;
}

export interface ClientDocument {
  /** client_id, public. */
  _id: string;
  /** Absent for public clients. */
  secretHash?: string;
  /** client_secret_jwt only: the secret itself, sealed, since an HMAC is checked with it (docs/decisions.md). */
  secretSealed?: Sealed;
  name: string;
  website: string;
  /** The first registered redirect URI (the only one of clients registered before RFC 7591). */
  redirectUri: string;
  /** Every registered redirect URI, redirectUri first; absent on older clients. */
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  /** Absent on older clients, which may use client_secret_basic and client_secret_post. */
  tokenEndpointAuthMethod?: ClientAuthMethod;
  /** RFC 7592: hash of the token that reads, updates and deletes this registration. */
  registrationTokenHash?: string;
  grants: GrantType[];
  /**
   * A public client's web origins, from its http(s) redirect URIs: browser apps there may call the
   * token, userinfo, revocation and device endpoints across origins (CORS). Absent for the others.
   */
  webOrigins?: string[];
  /** Absent on clients registered otherwise than by RFC 7591, or before it held anything. */
  metadata?: RegisteredMetadata;
  /** The user who registered the client; absent for clients registered from the command line. */
  ownerId?: string;
  /** The operator let it act as an operator tool: its client_credentials tokens may carry the `admin` scope. */
  operatorAccess?: boolean;
  /** Registered without a token (REGISTRATION=open) and given no token yet: deleted after this time. */
  unusedUntil?: Date;
  /** Its slot of the cap on unused open registrations (a rate-limit hit's id), given back when it is used. */
  unusedSlot?: string;
  /** The name in lower case, kept with it: what the console's search is an index range on (clients.dao.ts). */
  nameKey?: string;
  createdAt: Date;
}

const clientSchema = new Schema<ClientDocument>(
  {
    _id: { type: String, required: true },
    secretHash: { type: String },
    secretSealed: { iv: String, tag: String, data: String },
    name: { type: String, required: true },
    website: { type: String },
    redirectUri: { type: String },
    redirectUris: { type: [String], default: undefined },
    postLogoutRedirectUris: { type: [String], default: undefined },
    tokenEndpointAuthMethod: { type: String },
    registrationTokenHash: { type: String },
    grants: { type: [String], required: true },
    metadata: { type: Schema.Types.Mixed },
    webOrigins: { type: [String], default: undefined },
    ownerId: { type: String },
    operatorAccess: { type: Boolean },
    unusedUntil: { type: Date },
    unusedSlot: { type: String },
    nameKey: { type: String },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'oauth_clients' },
);
clientSchema.index({ ownerId: 1, createdAt: 1 });
clientSchema.index({ webOrigins: 1 });
clientSchema.index({ unusedUntil: 1 }, { sparse: true });
clientSchema.index({ nameKey: 1 });

export const ClientModel = model<ClientDocument>('OAuthClient', clientSchema);
