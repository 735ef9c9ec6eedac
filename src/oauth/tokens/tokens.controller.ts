// The token endpoints, RFC 7009 revocation and RFC 7662 introspection. A token request is a short
// list of named steps (docs/architecture.md walks them):
//   read parameters -> authenticate the client -> check the grant type -> the grant -> respond
// POST /oauth/token (seed 001's variant B) takes a form or JSON body and every grant the client is
// allowed; POST /v1/oauth/token (variant A) takes the query string or a form body, the code and
// refresh grants only, and answers with scope, uid and info.
import type { Clock } from '../../common/clock';
import type { Stores } from '../../stores';
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import { clientAddress, limitRule } from '../../common/rate-limit';
import type { Config } from '../../config';
import type { PasswordVerifier } from '../../auth/auth.service';
import * as clientsService from '../clients/clients.service';
import type { ClientDocument } from '../clients/clients.model';
import { invalidClient, invalidRequest, OAuthErrorResponse } from '../oauth.errors';
import { collectParameters, type OAuthParameters } from '../oauth.parameters';
import {
  DEVICE_CODE_GRANT,
  JWT_BEARER_GRANT,
  TOKEN_EXCHANGE_GRANT,
  PUBLIC_CLIENT_GRANTS,
  TOKEN_GRANT_TYPES,
  V1_TOKEN_GRANT_TYPES,
  type TokenGrantType,
} from '../protocol';
import { authorizationCodeGrant } from './authorization-code.grant';
import { clientCredentialsGrant } from './client-credentials.grant';
import { deviceCodeGrant } from './device-code.grant';
import { tokenResponse, v1TokenResponse, type IdTokenSigner, type IssuedToken, type Lifetimes } from './issuing.service';
import { createPasswordGrant } from './password.grant';
import { createRefreshTokenGrant } from './refresh-token.grant';
import type { AgentContext, GrantHandler } from './token-request';
import { tokenExchangeGrant } from './token-exchange.grant';
import { jwtBearerGrant } from './jwt-bearer.grant';
import type { IdTokens } from '../oidc/id-tokens.service';
import type { TrustedIssuers } from './trusted-issuers';
import type { ActivityLog } from '../../account/activity.service';
import * as tokensService from './tokens.service';
import type { CheckedProof, DpopProofs } from '../dpop/dpop.service';
import { dpopAlgorithmsFor, isFapi } from '../clients/fapi.service';
import { documentSightings } from '../clients/client-documents.service';
import type { TokenStrategies } from './strategies';

/** One token endpoint: where its parameters come from, which grants it takes, how it answers. */
interface TokenEndpoint {
  /** Whether it takes DPoP proofs (seed 001's variant A answers `bearer` tokens only). */
  dpop: boolean;
  sources: readonly ('query' | 'body')[];
  grantTypes: readonly TokenGrantType[];
  lifetimes: Lifetimes;
  idTokens: IdTokenSigner | null;
  respond(issued: IssuedToken): object;
}

/** Step: the client, authenticated once for the whole request (RFC 6749 §2.3, §3.2.1). */
async function authenticateClient(
  authenticate: clientsService.ClientAuthentication,
  req: Request,
  parameters: OAuthParameters,
  grantType: string | undefined,
): Promise<ClientDocument> {
  const credentials = clientsService.credentialsOf(parameters, req.headers.authorization);
  const client = await authenticate(credentials, at(req));
  if (credentials.clientSecret === undefined && credentials.assertion === undefined) {
    // A public client has no secret: it may use only the grants that need none, and it proves the
    // code exchange with its PKCE verifier (RFC 9700 §2.1.1).
    const secretless = PUBLIC_CLIENT_GRANTS.includes(grantType as TokenGrantType);
    if (!secretless || (grantType === 'authorization_code' && parameters.code_verifier === undefined)) throw invalidClient();
  }
  return client;
}

/** Where a request authenticates its client: its path (assertions' audience) and its address. */
const at = (req: Request): clientsService.AuthenticationAt => ({ path: req.path, address: clientAddress(req) });

/** Step: the grant type is named, known to this endpoint and allowed to this client. */
function checkGrantType(endpoint: TokenEndpoint, client: ClientDocument, grantType: string | undefined): TokenGrantType {
  if (grantType === undefined) throw invalidRequest('Missing parameter: grant_type');
  checkKnown(endpoint, grantType);
  if (!client.grants.includes(grantType as TokenGrantType)) {
    throw new OAuthErrorResponse('unauthorized_client', `This client may not use grant_type=${grantType}`);
  }
  return grantType as TokenGrantType;
}

/** The request's DPoP proof for an endpoint, checked; a refused proof (DpopProofError) is the OAuth presenter's to word (RFC 9449 §5, §8). */
function proofReader(dpop: DpopProofs) {
  return async (req: Request, res: Response, client: ClientDocument): Promise<CheckedProof | null> => {
    const nonce = dpop.nonce();
    if (nonce !== undefined && req.headers.dpop !== undefined) res.set('DPoP-Nonce', nonce);
    return dpop.check(req, undefined, dpopAlgorithmsFor(client));
  };
}

/** The two token endpoints' definitions (seed 001's variants B and A). */
function tokenEndpoints(config: Config, idTokens: IdTokenSigner) {
  const refreshToken = config.oauth.refreshTokenLifetime;
  const token: TokenEndpoint = {
    dpop: true,
    sources: ['body'],
    grantTypes: TOKEN_GRANT_TYPES,
    lifetimes: { accessToken: config.oauth.accessTokenLifetime, refreshToken },
    idTokens,
    respond: tokenResponse,
  };
  const v1: TokenEndpoint = {
    dpop: false,
    sources: ['query', 'body'],
    grantTypes: V1_TOKEN_GRANT_TYPES,
    lifetimes: { accessToken: config.oauth.v1AccessTokenLifetime, refreshToken },
    idTokens: null,
    // Both of its grants act for a person.
    respond: (issued) => v1TokenResponse({ ...issued, person: issued.person! }),
  };
  return { token, v1 };
}

export function createTokensController(
  config: Config,
  verifyPassword: PasswordVerifier,
  idTokens: IdTokens,
  tokens: TokenStrategies,
  dpop: DpopProofs,
  stores: Pick<Stores, 'clients' | 'clientKeySets' | 'resources' | 'users'>,
  clock: Clock,
  agentDeps: { idTokens: IdTokens; trusted: TrustedIssuers; activity: Pick<ActivityLog, 'record'> },
) {
  // The token endpoints' budgets (RATE_LIMITS), counted once the client is known: its address's, and
  // the client's only when it authenticated (clients.service.ts ClientBudgets).
  const authenticate = clientsService.createClientAuthentication(config, stores, {
    perAddress: limitRule('token:address', config.limits.tokenPerAddress),
    perClient: limitRule('token:client', config.limits.tokenPerClient),
  });
  const proofOf = proofReader(dpop);
  const grants: Record<TokenGrantType, GrantHandler> = {
    authorization_code: authorizationCodeGrant,
    refresh_token: createRefreshTokenGrant(config.oauth.refreshGraceSeconds, clock),
    password: createPasswordGrant(verifyPassword),
    client_credentials: clientCredentialsGrant,
    [DEVICE_CODE_GRANT]: deviceCodeGrant,
    [TOKEN_EXCHANGE_GRANT]: tokenExchangeGrant,
    [JWT_BEARER_GRANT]: jwtBearerGrant,
  };
  const agents: AgentContext = {
    idTokens: agentDeps.idTokens,
    liveness: { clients: stores.clients, users: stores.users, cache: tokens.cache, formats: tokens.formats },
    trusted: agentDeps.trusted,
    clock,
    record: (userId, kind, where) => agentDeps.activity.record(userId, kind, where),
  };
  const endpoints = tokenEndpoints(config, idTokens);
  const sighted = documentSightings(clock);

  function endpoint(definition: TokenEndpoint) {
    return async (req: Request, res: Response): Promise<void> => {
      const parameters = collectParameters(req, definition.sources);
      // Variant A names its two grants before anything else is looked at.
      if (definition === endpoints.v1 && parameters.grant_type !== undefined) checkKnown(definition, parameters.grant_type);
      const client = await authenticateClient(authenticate, req, parameters, parameters.grant_type);
      const grantType = checkGrantType(definition, client, parameters.grant_type);
      const proof = definition.dpop ? await proofOf(req, res, client) : null;
      // FAPI 2.0 §5.3.2.1-5: only sender-constrained tokens, so a FAPI client's request needs a proof.
      if (!proof && isFapi(client)) throw new OAuthErrorResponse('invalid_dpop_proof', 'FAPI 2.0 clients must send a DPoP proof');
      const issued = await grants[grantType]({
        proof,
        client,
        parameters,
        address: clientAddress(req),
        lifetimes: definition.lifetimes,
        idTokens: definition.idTokens,
        issuer: config.publicUrl,
        resources: stores.resources,
        issue: tokens.issue,
        agents: definition === endpoints.token ? agents : undefined,
      });
      // A client registered without a token is kept once it got one (REGISTRATION=open).
      // A client known by its metadata document is listed for the operator once it got a token.
      await Promise.all([clientsService.markUsed(client), sighted(client)]);
      noStore(res).json(definition.respond(issued));
    };
  }

  return { token: endpoint(endpoints.token), v1Token: endpoint(endpoints.v1), ...createTokenLookups(config, tokens, dpop, stores) };
}

/** RFC 7009 revocation and RFC 7662 introspection: an authenticated client asks about its own tokens; neither counts a budget. */
function createTokenLookups(
  config: Config,
  tokens: TokenStrategies,
  dpop: DpopProofs,
  stores: Pick<Stores, 'clients' | 'clientKeySets' | 'users'>,
) {
  const authenticate = clientsService.createClientAuthentication(config, stores);
  const proofOf = proofReader(dpop);
  async function caller(req: Request, res: Response) {
    const parameters = collectParameters(req, ['body']);
    const client = await authenticate(clientsService.credentialsOf(parameters, req.headers.authorization), at(req));
    await proofOf(req, res, client);
    return { parameters, client };
  }
  return {
    async revoke(req: Request, res: Response): Promise<void> {
      const { parameters, client } = await caller(req, res);
      if (parameters.token) await tokensService.revoke(client, parameters.token, parameters.token_type_hint, tokens.formats);
      // RFC 7009 §2.2: 200 whether or not the token was known. The RFC has clients ignore the body;
      // an empty JSON object also suits clients that insist on JSON (simple-oauth2).
      noStore(res).status(200).json({});
    },

    async introspect(req: Request, res: Response): Promise<void> {
      const { parameters, client } = await caller(req, res);
      const context = { formats: tokens.formats, cache: tokens.cache, clients: stores.clients, users: stores.users };
      const result = parameters.token
        ? await tokensService.introspect(client, parameters.token, parameters.token_type_hint, context)
        : { active: false };
      noStore(res).json(result);
    },
  };
}

function checkKnown(endpoint: TokenEndpoint, grantType: string): void {
  if (!endpoint.grantTypes.includes(grantType as TokenGrantType)) {
    throw new OAuthErrorResponse('unsupported_grant_type', `grant_type must be one of ${endpoint.grantTypes.join(', ')}`);
  }
}
