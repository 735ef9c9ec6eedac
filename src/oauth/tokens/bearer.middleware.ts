// The protected resources' bearer token check (RFC 6750): @node-oauth/oauth2-server reads the token
// from the request (the Authorization header, or a form body on POST; never the query string), checks
// it is live and carries the scope, through an adapter that maps its model API to the tokens service
// and its errors, by class, to ours. A request that sends no bearer credentials at all gets the bare
// challenge (RFC 6750 §3.1). A DPoP-bound token (RFC 9449 §7) comes with the DPoP scheme and a proof,
// which the library does not read: that path is ours, and a bound token sent as Bearer is refused.
// Both ask tokens.service's liveGrant whether the token is alive (the same question for a JWT and an
// opaque token: not revoked, its client and person still there), whatever the route then needs.
import OAuth2Server, {
  InsufficientScopeError,
  Request as LibraryRequest,
  Response as LibraryResponse,
  ServerError,
  UnauthorizedRequestError,
  type ExtensionModel,
  type Token,
} from '@node-oauth/oauth2-server';
import type { Request, RequestHandler, Response } from 'express';
import { bearerToken, dpopToken } from '../../common/authorization';
import { bearerChallenge, dpopChallenge } from '../../common/bearer-challenge';
import type { Config } from '../../config';
import { DpopProofError, type CheckedProof, type DpopProofs } from '../dpop/dpop.service';
import { dpopAlgorithmsFor } from '../clients/fapi.service';
import { DPOP_ALGORITHMS } from '../protocol';
import { AppError } from '../../common/errors';
import { principal } from '../../common/guards';
import type { UserRecord } from '../../users/users.types';
import type { JwtAccessTokens } from './jwt-access-tokens.service';
import type { Stores } from '../../stores';
import * as tokensService from './tokens.service';
import type { AccessGrant } from './tokens.service';

/** Who a valid bearer token acts for: what the token grants and its person. */
export interface OAuthPrincipal {
  token: AccessGrant;
  person: UserRecord;
}

/** How the guard reads tokens: tokens.service's liveness context. */
type Reading = tokensService.LivenessContext;

export interface BearerGuardOptions {
  /** The scope the resource needs. */
  scope: string;
  /** `api` for GET /api/user; userinfo's challenges carry none. */
  realm?: string;
  /** Seed 001 names the bad-token error invalid_request; RFC 6750 names it invalid_token. */
  invalidTokenError: 'invalid_request' | 'invalid_token';
  /**
   * A token that acts for a client alone (no person) is refused this way, or `accepted`: then no
   * person is read at all, and the route gets the grant alone (oauthGrant).
   */
  clientToken: 'insufficient_scope' | 'invalid' | 'accepted';
  /** The body of the bare challenge, when no credentials came. */
  missingDescription: string;
}

/** The adapter: the library's model functions, answered by the tokens service. */
function libraryServer(reading: Reading): OAuth2Server {
  // Authentication needs only getAccessToken and verifyScope (the library checks no more); its types
  // ask for a whole token-endpoint model, which our own token endpoint makes unnecessary here.
  const model: Pick<ExtensionModel, 'getAccessToken' | 'verifyScope'> = {
    async getAccessToken(accessToken: string): Promise<Token | false> {
      let live: tokensService.LiveGrant | null;
      try {
        live = await tokensService.liveGrant(accessToken, reading);
      } catch (err) {
        // Passed through by the library as it is, so the guard can tell an outage from a bad token.
        throw new ServerError('The token lookup failed', { cause: err });
      }
      if (!live) return false;
      // Checked live by liveGrant; the library wants an expiry to check again.
      return {
        accessToken,
        accessTokenExpiresAt: new Date(Date.now() + 1000),
        scope: live.grant.scope,
        client: { id: live.grant.clientId, grants: [] },
        user: {},
        live,
      };
    },
    async verifyScope(token: Token, scope: string[]): Promise<boolean> {
      return scope.every((wanted) => token.scope?.includes(wanted));
    },
  };
  return new OAuth2Server({ model: model as ExtensionModel });
}

/**
 * The real request, for the library. RFC 7235 makes the scheme name case-insensitive, but the
 * library matches `Bearer` exactly, so a `bearer` or `BEARER` header is handed over as `Bearer`.
 */
function libraryRequest(req: Request): LibraryRequest {
  const header = req.headers.authorization;
  const token = bearerToken(header);
  if (!header || token === null || header.startsWith('Bearer ')) return new LibraryRequest(req);
  return new LibraryRequest({
    headers: { ...req.headers, authorization: `Bearer ${header.trim().slice(6).trim()}` } as unknown as Record<string, string>,
    method: req.method,
    query: req.query as Record<string, string>,
    body: req.body as unknown,
  });
}

/** The token of a DPoP request, live, bound to the key of a valid proof for this request; refusals in DPoP's challenge. */
async function dpopBoundToken(
  req: Request,
  res: Response,
  token: string,
  reading: Reading,
  dpop: DpopProofs,
): Promise<tokensService.LiveGrant> {
  const nonce = dpop.nonce();
  if (nonce !== undefined) res.set('DPoP-Nonce', nonce);
  const refused = (error: string, description: string) =>
    new AppError(
      401,
      { error, error_description: description },
      { 'WWW-Authenticate': dpopChallenge({ error, description, algs: DPOP_ALGORITHMS }), ...(nonce ? { 'DPoP-Nonce': nonce } : {}) },
    );
  const live = token ? await tokensService.liveGrant(token, reading) : null;
  if (!live) throw refused('invalid_token', 'The access token is invalid, expired or revoked');
  const doc = live.grant;
  if (!doc.jkt) throw refused('invalid_token', 'This access token is not bound to a DPoP key: send it as Bearer');
  let proof: CheckedProof | null;
  try {
    proof = await dpop.check(req, token, dpopAlgorithmsFor(live.client));
  } catch (err) {
    if (err instanceof DpopProofError) throw refused(err.error, err.message);
    throw err;
  }
  if (!proof) throw refused('invalid_dpop_proof', 'Send a DPoP proof with a DPoP-bound access token');
  if (proof.jkt !== doc.jkt) throw refused('invalid_token', 'The access token is bound to another DPoP key');
  return live;
}

export function createBearerGuard(
  cache: tokensService.AccessTokenCache | undefined,
  config: Config,
  dpop: DpopProofs,
  jwts: JwtAccessTokens,
  stores: Pick<Stores, 'users' | 'clients'>,
) {
  const reading: Reading = { issuer: config.publicUrl, jwts, cache, users: stores.users, clients: stores.clients };
  const server = libraryServer(reading);
  return function requireOAuthToken(options: BearerGuardOptions): RequestHandler {
    const refused = (status: 401 | 403, error: string, description: string) =>
      new AppError(
        status,
        { error, error_description: description },
        {
          'WWW-Authenticate': bearerChallenge({ realm: options.realm, error, ...(options.realm ? {} : { description }) }),
        },
      );
    const invalid = () => refused(401, options.invalidTokenError, 'The access token is invalid, expired or revoked');
    const missing = () =>
      new AppError(
        401,
        { error_description: options.missingDescription },
        { 'WWW-Authenticate': bearerChallenge({ realm: options.realm }) },
      );

    return async (req: Request, res: Response, next) => {
      const bound = dpopToken(req.headers.authorization);
      if (bound !== null) {
        const live = await dpopBoundToken(req, res, bound, reading, dpop);
        if (!live.grant.scope.includes(options.scope)) {
          throw new AppError(
            403,
            { error: 'insufficient_scope', error_description: `The token lacks the ${options.scope} scope` },
            { 'WWW-Authenticate': dpopChallenge({ error: 'insufficient_scope', algs: DPOP_ALGORITHMS }) },
          );
        }
        return admit(live, res, next);
      }
      const body = req.body as Record<string, unknown> | undefined;
      const sent =
        bearerToken(req.headers.authorization) !== null || req.query.access_token !== undefined || body?.access_token !== undefined;
      if (!sent) throw missing();
      let token: Token;
      try {
        token = await server.authenticate(libraryRequest(req), new LibraryResponse(), {
          scope: [options.scope],
          addAcceptedScopesHeader: false,
          addAuthorizedScopesHeader: false,
        });
      } catch (err) {
        if (err instanceof ServerError && err.cause instanceof Error) throw err.cause;
        if (err instanceof InsufficientScopeError) throw refused(403, 'insufficient_scope', `The token lacks the ${options.scope} scope`);
        if (err instanceof UnauthorizedRequestError) throw missing();
        // invalid_request (a malformed header, a token in the query) and invalid_token alike.
        throw invalid();
      }
      const live = token.live as tokensService.LiveGrant;
      // RFC 9449 §7.2: a bound token sent as a bearer token is refused, with DPoP's challenge.
      if (live.grant.jkt) {
        const description = 'This access token is bound to a DPoP key: send it with the DPoP scheme and a proof';
        throw new AppError(
          401,
          { error: 'invalid_token', error_description: description },
          { 'WWW-Authenticate': dpopChallenge({ error: 'invalid_token', description, algs: DPOP_ALGORITHMS }) },
        );
      }
      return admit(live, res, next);
    };

    /** The person a live token with the scope acts for, for the route; a client's own token as the options say. */
    function admit({ grant, person }: tokensService.LiveGrant, res: Response, next: () => void): void {
      if (options.clientToken === 'accepted') {
        res.locals.oauthGrant = grant;
        return next();
      }
      if (!person) {
        if (options.clientToken === 'invalid') throw invalid();
        throw refused(403, 'insufficient_scope', 'This token acts for a client application, not a user');
      }
      res.locals.oauth = { token: grant, person } satisfies OAuthPrincipal;
      next();
    }
  };
}

/** The principal requireOAuthToken found. */
export const oauthPrincipal = (res: Response): OAuthPrincipal => principal(res, 'oauth');

/** The grant alone, on a route whose guard accepts clients' own tokens. */
export const oauthGrant = (res: Response): AccessGrant => principal(res, 'oauthGrant');
