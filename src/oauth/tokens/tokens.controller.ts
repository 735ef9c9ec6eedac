// The token endpoints, RFC 7009 revocation and RFC 7662 introspection. Variant A (POST
// /v1/oauth/token): parameters in the query string or a form body, authorization_code and
// refresh_token only, the response carrying scope, uid and info. Variant B (POST /oauth/token): a
// form or JSON body, every grant the client is allowed.
import type { Request, Response } from 'express';
import type { ServerOptions, Token } from '@node-oauth/oauth2-server';
import type { SignInLimits } from '../../auth/auth.service';
import type { Config } from '../../config';
import { tokensIssued } from '../../common/metrics';
import { noStore } from '../../common/no-store';
import { clientAddress } from '../../common/rate-limit';
import * as usersService from '../../users/users.service';
import { displayName } from '../../users/users.types';
import { fromLibraryError, OAuthErrorResponse } from '../oauth.errors';
import { collectParameters, type Parameters } from '../oauth.parameters';
import { libraryRequest, OAuthResponse, type OAuthServers } from '../oauth.server';
import { withPasswordCheck, type OAuthUser } from '../oauth.storage';
import type { IdTokens } from '../oidc/id-tokens.service';
import * as tokensService from './tokens.service';

const VARIANT_A_GRANTS = ['authorization_code', 'refresh_token'];

export function createTokensController(
  servers: OAuthServers,
  oauth: Config['oauth'],
  limits: SignInLimits | null,
  idTokens: IdTokens,
  tokenCache: tokensService.AccessTokenCache | undefined,
) {
  /** Runs the library's token flow with the client's credentials handed over as (decoded) parameters. */
  async function issue(server: OAuthServers['variantA'], req: Request, parameters: Parameters): Promise<Token> {
    const { clientId, clientSecret } = tokensService.clientCredentials(parameters, req.headers.authorization);
    const { client_id: _id, client_secret: _secret, ...rest } = parameters;
    const credentials = { ...(clientId ? { client_id: clientId } : {}), ...(clientSecret ? { client_secret: clientSecret } : {}) };
    // The library's options type leaves out the model, which it does accept per call.
    const options: Partial<ServerOptions> = { model: withPasswordCheck(servers.model, limits, clientAddress(req)) };
    let token: Token;
    try {
      token = await server.token(libraryRequest({ ...rest, ...credentials }), new OAuthResponse(), options);
    } catch (err) {
      throw fromLibraryError(err);
    }
    // The library accepted the grant type, so the label is one of the few it knows.
    tokensIssued.inc({ grant_type: parameters.grant_type ?? 'unknown' });
    return token;
  }

  /** OpenID Connect: an ID token when the grant has a person and the scope has openid (a refresh gets a fresh one). */
  async function idTokenFor(token: Token): Promise<{ id_token?: string }> {
    const user = token.user as OAuthUser;
    const scope = token.scope ?? [];
    if (!user.id || !scope.includes('openid')) return {};
    const idToken = await idTokens.issue({
      userId: user.id,
      clientId: (token.client as { id: string }).id,
      scope,
      authTime: user.authTime,
      nonce: user.nonce,
      accessToken: token.accessToken,
    });
    return idToken ? { id_token: idToken } : {};
  }

  return {
    async variantA(req: Request, res: Response): Promise<void> {
      const parameters = collectParameters(req, ['query', 'body']);
      if (parameters.grant_type && !VARIANT_A_GRANTS.includes(parameters.grant_type)) {
        throw new OAuthErrorResponse('unsupported_grant_type', 'This endpoint supports authorization_code and refresh_token');
      }
      const token = await issue(servers.variantA, req, parameters);
      const user = await usersService.findById((token.user as OAuthUser).id!);
      if (!user) throw new OAuthErrorResponse('invalid_grant', 'The user of this grant no longer exists');
      noStore(res).json({
        access_token: token.accessToken,
        token_type: 'bearer',
        expires_in: oauth.v1AccessTokenLifetime,
        refresh_token: token.refreshToken,
        scope: (token.scope ?? []).join(' '),
        uid: user.uid,
        info: { name: displayName(user), email: user.email },
      });
    },

    async variantB(req: Request, res: Response): Promise<void> {
      const token = await issue(servers.variantB, req, collectParameters(req, ['body']));
      noStore(res).json({
        token_type: 'Bearer',
        expires_in: oauth.accessTokenLifetime,
        access_token: token.accessToken,
        refresh_token: token.refreshToken,
        ...(await idTokenFor(token)),
      });
    },

    async revoke(req: Request, res: Response): Promise<void> {
      const parameters = collectParameters(req, ['body']);
      const client = await tokensService.authenticateClient(parameters, req.headers.authorization);
      if (parameters.token) await tokensService.revoke(client, parameters.token, parameters.token_type_hint);
      // RFC 7009 §2.2: 200 whether or not the token was known. The RFC has clients ignore the body;
      // an empty JSON object also suits clients that insist on JSON (simple-oauth2).
      noStore(res).status(200).json({});
    },

    async introspect(req: Request, res: Response): Promise<void> {
      const parameters = collectParameters(req, ['body']);
      const client = await tokensService.authenticateClient(parameters, req.headers.authorization);
      const result = parameters.token
        ? await tokensService.introspect(client, parameters.token, parameters.token_type_hint, tokenCache)
        : { active: false };
      noStore(res).json(result);
    },
  };
}
