// Who is calling: each guard answers it once per route and leaves a typed principal for the handler.
//   requireJwt                       seed 000's access token (here)                 -> jwtClaims(res)
//   requireSession / requireSignedIn a browser session (session/session.middleware) -> signedInPerson(res)
//   requireOAuthToken({ scope })     an OAuth access token (oauth/tokens/bearer.middleware) -> oauthPrincipal(res)
//   requireBasicAuth                 the catalogue's HTTP Basic (catalogue/catalogue.guard) -> basicUserId(res)
// Seed 000's rules for its Authorization header: absent or not Bearer is 401 with an empty body; a
// token that is malformed, badly signed or expired is 403 with an empty body.
import type { RequestHandler, Response } from 'express';
import type { AccessTokenClaims, AccessTokens } from './access-tokens';
import { bearerToken } from './authorization';
import { ForbiddenError, UnauthorizedError } from './errors';

/** A principal a guard left on the response, or a programming error when the route has no such guard. */
export function principal<T>(res: Response, key: string): T {
  const found = (res.locals as Record<string, unknown>)[key];
  if (found === undefined) throw new Error(`no ${key} principal: the route lacks its guard`);
  return found as T;
}

export function requireJwt(accessTokens: AccessTokens): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (token === null) throw new UnauthorizedError();
    const claims = token ? await accessTokens.verifyCurrent(token) : null;
    if (!claims) throw new ForbiddenError();
    res.locals.jwt = claims;
    next();
  };
}

/** The claims of the access token requireJwt accepted. */
export const jwtClaims = (res: Response): AccessTokenClaims => principal(res, 'jwt');
