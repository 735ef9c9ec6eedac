// The authorization endpoint (GET shows the consent page, POST carries the decision), one handler
// for /v1/oauth/authorize, /authorize and /oauth/authorize. Errors follow RFC 6749 §4.1.2.1: an
// unknown client or a redirect_uri other than the registered one gets a 400 page and no redirect;
// every other error goes back to the client's redirect_uri with `error` and `state`.
import type { Request, Response } from 'express';
import type { Config } from '../config';
import { AppError } from '../common/errors';
import { randomToken } from '../common/crypto';
import type { Csrf } from '../session/csrf';
import { consentPage, pageError } from '../session/pages';
import * as sessionService from '../session/session.service';
import * as clientsService from './clients.service';
import type { ClientDocument } from './oauth.model';
import { OAuthErrorResponse } from './oauth.errors';
import { collectParameters, type Parameters } from './oauth.parameters';
import { grantedScope } from './oauth.scopes';
import { libraryRequest, OAuthResponse, type OAuthServers } from './oauth.server';
import { saveToken, toLibraryClient } from './oauth.storage';

type ResponseType = 'code' | 'token';

interface AuthorizationRequest {
  client: ClientDocument;
  responseType: ResponseType;
  scope: string[];
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

const REQUIRED_GRANT: Record<ResponseType, string> = { code: 'authorization_code', token: 'implicit' };
const PKCE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,1024}$/;

/** Sends the browser back to the client: in the query for codes, in the fragment for tokens. */
function redirectBack(redirectUri: string, mode: ResponseType, values: Record<string, string | undefined>): AppError {
  const url = new URL(redirectUri);
  const entries = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (mode === 'code') entries.forEach(([name, value]) => url.searchParams.set(name, value));
  else url.hash = new URLSearchParams(entries).toString();
  return new AppError(302, undefined, { Location: url.toString() });
}

function readParameters(req: Request, source: 'query' | 'body'): Parameters {
  try {
    return collectParameters(req, [source]);
  } catch (err) {
    if (err instanceof OAuthErrorResponse) throw pageError(400, 'Invalid authorization request', (err.body as { error_description: string }).error_description);
    throw err;
  }
}

async function parseRequest(parameters: Parameters): Promise<AuthorizationRequest> {
  const client = parameters.client_id ? await clientsService.find(parameters.client_id) : null;
  if (!client) throw pageError(400, 'Unknown application', 'The application that sent you here is not registered with this server.');
  if (parameters.redirect_uri !== undefined && !clientsService.isRegisteredRedirectUri(client, parameters.redirect_uri)) {
    throw pageError(400, 'Invalid redirect address', 'The application asked to send you to an address it has not registered, so you were not sent there.');
  }
  const state = parameters.state !== undefined && PRINTABLE_ASCII.test(parameters.state) ? parameters.state : undefined;
  const requestedType = parameters.response_type;
  const mode: ResponseType = requestedType === 'token' ? 'token' : 'code';
  const fail = (error: string, description: string) => redirectBack(client.redirectUri, mode, { error, error_description: description, state });

  if (parameters.state !== undefined && state === undefined) throw fail('invalid_request', 'state must be printable ASCII, at most 1024 characters');
  if (!requestedType) throw fail('invalid_request', 'Missing parameter: response_type');
  if (requestedType !== 'code' && requestedType !== 'token') throw fail('unsupported_response_type', 'response_type must be code or token');
  if (!client.grants.includes(REQUIRED_GRANT[mode] as never)) throw fail('unauthorized_client', `This client may not use response_type=${mode}`);
  const scope = grantedScope(parameters.scope?.split(' ').filter(Boolean));
  if (!scope) throw fail('invalid_scope', 'scope must be read, write or both');

  const request: AuthorizationRequest = { client, responseType: mode, scope, state };
  if (mode === 'code' && (parameters.code_challenge || parameters.code_challenge_method)) {
    const method = parameters.code_challenge_method ?? 'plain';
    if (!parameters.code_challenge || !PKCE_CHALLENGE.test(parameters.code_challenge)) {
      throw fail('invalid_request', 'code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]');
    }
    if (method !== 'S256' && method !== 'plain') throw fail('invalid_request', 'code_challenge_method must be S256 or plain');
    request.codeChallenge = parameters.code_challenge;
    request.codeChallengeMethod = method;
  }
  return request;
}

/** The parameters that travel from the consent page to the decision, already validated. */
function consentFields(request: AuthorizationRequest): Record<string, string> {
  const fields: Record<string, string> = {
    client_id: request.client._id,
    redirect_uri: request.client.redirectUri,
    response_type: request.responseType,
    scope: request.scope.join(' '),
  };
  if (request.state) fields.state = request.state;
  if (request.codeChallenge) fields.code_challenge = request.codeChallenge;
  if (request.codeChallengeMethod) fields.code_challenge_method = request.codeChallengeMethod;
  return fields;
}

export function createAuthorizeController(servers: OAuthServers, oauth: Config['oauth'], csrf: Csrf) {
  async function issueCode(request: AuthorizationRequest, userId: string): Promise<string> {
    const response = new OAuthResponse();
    try {
      await servers.variantA.authorize(libraryRequest(consentFields(request)), response, {
        authenticateHandler: { handle: () => ({ id: userId }) },
      });
    } catch (err) {
      // The library answers its own errors with a redirect to the (already verified) redirect_uri.
      if (!response.get('location')) throw err;
    }
    return response.get('location');
  }

  async function issueImplicitToken(request: AuthorizationRequest, userId: string): Promise<string> {
    const accessToken = randomToken();
    const lifetime = oauth.v1AccessTokenLifetime;
    await saveToken(
      { accessToken, accessTokenExpiresAt: new Date(Date.now() + lifetime * 1000), scope: request.scope, client: toLibraryClient(request.client), user: {} },
      toLibraryClient(request.client),
      { id: userId },
    );
    // `token` is seed 001's name for the access token; the rest are RFC 6749 §4.2.2's.
    return redirectBack(request.client.redirectUri, 'token', {
      access_token: accessToken,
      token: accessToken,
      token_type: 'bearer',
      expires_in: String(lifetime),
      scope: request.scope.join(' '),
      state: request.state,
    }).headers.Location;
  }

  return {
    async show(req: Request, res: Response): Promise<void> {
      const request = await parseRequest(readParameters(req, 'query'));
      const user = await sessionService.currentUser(req);
      if (!user) {
        res.redirect(302, `/login?return_to=${encodeURIComponent(req.originalUrl)}`);
        return;
      }
      res.set('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(
        consentPage({
          action: req.baseUrl + req.path,
          csrfToken: csrf.token(req, res),
          clientName: request.client.name,
          clientWebsite: request.client.website,
          scopes: request.scope,
          fields: consentFields(request),
        }),
      );
    },

    async decide(req: Request, res: Response): Promise<void> {
      const parameters = readParameters(req, 'body');
      const user = await sessionService.currentUser(req);
      if (!user) {
        res.redirect(303, '/login');
        return;
      }
      const request = await parseRequest(parameters);
      if (parameters.decision === 'deny') {
        throw redirectBack(request.client.redirectUri, request.responseType, {
          error: 'access_denied',
          error_description: 'The user denied access',
          state: request.state,
        });
      }
      if (parameters.decision !== 'approve') throw pageError(400, 'Invalid decision', 'Choose Approve or Deny.');
      const location =
        request.responseType === 'code' ? await issueCode(request, user._id) : await issueImplicitToken(request, user._id);
      res.redirect(302, location);
    },
  };
}
