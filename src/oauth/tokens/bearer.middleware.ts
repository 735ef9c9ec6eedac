// The protected resources' token guard: one for every API of this server. @node-oauth/oauth2-server
// reads the token from the request (the Authorization header, or a form body on POST; never the query
// string) and asks its model, which answers with tokens.service's liveGrant: the one question "is this
// token alive" for every format (opaque, JWT) and sender. The request's sender constraint
// (sender-constraints.ts: Bearer, or DPoP with a proof) hands the library the token, confirms the
// request may use it, and words the refusals. A request that sends no token at all gets the bare
// challenge (RFC 6750 §3.1).
import OAuth2Server, {
  Response as LibraryResponse,
  ServerError,
  UnauthorizedRequestError,
  type ExtensionModel,
  type Token,
} from '@node-oauth/oauth2-server';
import type { Request, RequestHandler, Response } from 'express';
import { bearerChallenge } from '../../common/bearer-challenge';
import type { Config } from '../../config';
import type { DpopProofs } from '../dpop/dpop.service';
import { AppError } from '../../common/errors';
import { principal } from '../../common/guards';
import type { UserRecord } from '../../users/users.types';
import type { Stores } from '../../stores';
import type { AccessGrant } from './formats';
import { senderOf, type ChallengeExtras, type SenderConstraint } from './sender-constraints';
import { protectedResourceMetadataUrl } from '../protocol';
import type { TokenStrategies } from './strategies';
import * as tokensService from './tokens.service';

/** Who a valid bearer token acts for: what the token grants and its person. */
export interface OAuthPrincipal {
  token: AccessGrant;
  person: UserRecord;
}

export interface BearerGuardOptions {
  /** The scope the resource needs. */
  scope: string;
  /**
   * `api` for GET /api/user, whose challenges are seed 001's word for word (the realm and the error
   * alone); every other route's name the resource's metadata (RFC 9728 §5.1) and, refusing a scope,
   * the scope needed (RFC 6750 §3).
   */
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

/**
 * The library, with a model whose getAccessToken answers for every format and sender: the tokens
 * service's liveGrant. The scope is checked after the sender constraint (a DPoP request proves its
 * key before it learns what its token may do), so the model needs no verifyScope.
 */
function libraryServer(reading: tokensService.LivenessContext): OAuth2Server {
  const model: Pick<ExtensionModel, 'getAccessToken'> = {
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
      const expiresAt = new Date(Date.now() + 1000);
      return {
        accessToken,
        accessTokenExpiresAt: expiresAt,
        scope: live.grant.scope,
        client: { id: live.grant.clientId, grants: [] },
        user: {},
        live,
      };
    },
  };
  return new OAuth2Server({ model: model as ExtensionModel });
}

export function createBearerGuard(tokens: TokenStrategies, config: Config, dpop: DpopProofs, stores: Pick<Stores, 'users' | 'clients'>) {
  const reading = { issuer: config.publicUrl, formats: tokens.formats, cache: tokens.cache, users: stores.users, clients: stores.clients };
  const server = libraryServer(reading);
  const resourceMetadata = protectedResourceMetadataUrl(config.publicUrl);
  const challengeOf = (options: BearerGuardOptions): ChallengeExtras => (options.realm ? { realm: options.realm } : { resourceMetadata });

  /** The live grant the request's token stands for; refusals in its sender's words. */
  async function liveOf(sender: SenderConstraint, options: BearerGuardOptions): Promise<tokensService.LiveGrant> {
    const missing = () =>
      new AppError(401, { error_description: options.missingDescription }, { 'WWW-Authenticate': bearerChallenge(challengeOf(options)) });
    if (!sender.sent) throw missing();
    try {
      const token = await server.authenticate(sender.libraryRequest, new LibraryResponse());
      return token.live as tokensService.LiveGrant;
    } catch (err) {
      if (err instanceof ServerError && err.cause instanceof Error) throw err.cause;
      if (err instanceof UnauthorizedRequestError) throw missing();
      // invalid_request (a malformed header, a token in the query) and invalid_token alike.
      const error = sender.invalidTokenError(options.invalidTokenError);
      throw sender.refusal(401, error, 'The access token is invalid, expired or revoked');
    }
  }

  return function requireOAuthToken(options: BearerGuardOptions): RequestHandler {
    return async (req: Request, res: Response, next) => {
      const sender = senderOf(req, res, dpop, challengeOf(options));
      const needed = options.realm ? {} : { scope: options.scope };
      const live = await liveOf(sender, options);
      await sender.confirm(req, live);
      if (!live.grant.scope.includes(options.scope)) {
        throw sender.refusal(403, 'insufficient_scope', `The token lacks the ${options.scope} scope`, needed);
      }
      if (options.clientToken === 'accepted') {
        res.locals.oauthGrant = live.grant;
        return next();
      }
      if (!live.person) {
        const invalid = sender.invalidTokenError(options.invalidTokenError);
        if (options.clientToken === 'invalid') throw sender.refusal(401, invalid, 'The access token is invalid, expired or revoked');
        throw sender.refusal(403, 'insufficient_scope', 'This token acts for a client application, not a user');
      }
      res.locals.oauth = { token: live.grant, person: live.person } satisfies OAuthPrincipal;
      next();
    };
  };
}

/** The principal requireOAuthToken found. */
export const oauthPrincipal = (res: Response): OAuthPrincipal => principal(res, 'oauth');

/** The grant alone, on a route whose guard accepts clients' own tokens. */
export const oauthGrant = (res: Response): AccessGrant => principal(res, 'oauthGrant');
