// The protected resources' bearer token check (RFC 6750): @node-oauth/oauth2-server reads the token
// from the request (the Authorization header, or a form body on POST; never the query string), checks
// it is live and carries the scope, through an adapter that maps its model API to the tokens service
// and its errors, by class, to ours. A request that sends no bearer credentials at all gets the bare
// challenge (RFC 6750 §3.1).
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
import { bearerToken } from '../../common/authorization';
import { bearerChallenge } from '../../common/bearer-challenge';
import { AppError } from '../../common/errors';
import { principal } from '../../common/guards';
import * as usersService from '../../users/users.service';
import type { UserRecord } from '../../users/users.types';
import type { TokenDocument } from './tokens.model';
import * as tokensService from './tokens.service';

/** Who a valid bearer token acts for: the token and its person. */
export interface OAuthPrincipal {
  token: TokenDocument;
  person: UserRecord;
}

export interface BearerGuardOptions {
  /** The scope the resource needs. */
  scope: string;
  /** `api` for GET /api/user; userinfo's challenges carry none. */
  realm?: string;
  /** Seed 001 names the bad-token error invalid_request; RFC 6750 names it invalid_token. */
  invalidTokenError: 'invalid_request' | 'invalid_token';
  /** A token that acts for a client alone (no person) is refused this way. */
  clientToken: 'insufficient_scope' | 'invalid';
  /** The body of the bare challenge, when no credentials came. */
  missingDescription: string;
}

/** The adapter: the library's model functions, answered by the tokens service. */
function libraryServer(cache: tokensService.AccessTokenCache | undefined): OAuth2Server {
  // Authentication needs only getAccessToken and verifyScope (the library checks no more); its types
  // ask for a whole token-endpoint model, which our own token endpoint makes unnecessary here.
  const model: Pick<ExtensionModel, 'getAccessToken' | 'verifyScope'> = {
    async getAccessToken(accessToken: string): Promise<Token | false> {
      let doc: TokenDocument | null;
      try {
        doc = await tokensService.liveAccessToken(accessToken, cache);
      } catch (err) {
        // Passed through by the library as it is, so the guard can tell an outage from a bad token.
        throw new ServerError('The token lookup failed', { cause: err });
      }
      if (!doc) return false;
      return {
        accessToken,
        accessTokenExpiresAt: doc.accessTokenExpiresAt,
        scope: doc.scope,
        client: { id: doc.clientId, grants: [] },
        user: {},
        doc,
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

export function createBearerGuard(cache: tokensService.AccessTokenCache | undefined) {
  const server = libraryServer(cache);
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
      const doc = token.doc as TokenDocument;
      if (!doc.userId) {
        if (options.clientToken === 'invalid') throw invalid();
        throw refused(403, 'insufficient_scope', 'This token acts for a client application, not a user');
      }
      const person = await usersService.findCurrent(doc.userId);
      if (!person) throw invalid();
      res.locals.oauth = { token: doc, person } satisfies OAuthPrincipal;
      next();
    };
  };
}

/** The principal requireOAuthToken found. */
export const oauthPrincipal = (res: Response): OAuthPrincipal => principal(res, 'oauth');
