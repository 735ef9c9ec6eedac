// The rules of the authorization endpoint (RFC 6749 §4.1 and §4.2, PKCE per RFC 7636). An unknown
// client or a redirect_uri other than the registered one is refused without a redirect (§4.1.2.1);
// every other error goes back to the client's redirect_uri with `error` and `state`. The service
// returns what to do; the controller turns it into a response.
import type { Config } from '../../config';
import { randomToken } from '../../common/crypto';
import * as clientsService from '../clients/clients.service';
import type { ClientDocument } from '../clients/clients.model';
import type { Parameters } from '../oauth.parameters';
import { grantedScope } from '../oauth.scopes';
import { libraryRequest, OAuthResponse, type OAuthServers } from '../oauth.server';
import { saveToken, toLibraryClient } from '../oauth.storage';

type ResponseType = 'code' | 'token';

export interface AuthorizationRequest {
  client: ClientDocument;
  responseType: ResponseType;
  scope: string[];
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/** A request that may go on to the consent page. */
export interface Consent {
  kind: 'consent';
  request: AuthorizationRequest;
}

/** Back to the client, with a result or an error. */
export interface Redirect {
  kind: 'redirect';
  location: string;
}

/** Refused on a page of this server: there is no client address it is safe to send the browser to. */
export interface Refusal {
  kind: 'refusal';
  title: string;
  message: string;
}

const REQUIRED_GRANT: Record<ResponseType, string> = { code: 'authorization_code', token: 'implicit' };
const PKCE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,1024}$/;

export const refusal = (title: string, message: string): Refusal => ({ kind: 'refusal', title, message });

/** Sends the browser back to the client: in the query for codes, in the fragment for tokens. */
function redirectBack(redirectUri: string, mode: ResponseType, values: Record<string, string | undefined>): Redirect {
  const url = new URL(redirectUri);
  const entries = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (mode === 'code') entries.forEach(([name, value]) => url.searchParams.set(name, value));
  else url.hash = new URLSearchParams(entries).toString();
  return { kind: 'redirect', location: url.toString() };
}

/** Checks an authorization request in the order RFC 6749 §4.1.2.1 asks for. */
export async function review(parameters: Parameters): Promise<Consent | Redirect | Refusal> {
  const client = parameters.client_id ? await clientsService.find(parameters.client_id) : null;
  if (!client) return refusal('Unknown application', 'The application that sent you here is not registered with this server.');
  if (parameters.redirect_uri !== undefined && !clientsService.isRegisteredRedirectUri(client, parameters.redirect_uri)) {
    return refusal(
      'Invalid redirect address',
      'The application asked to send you to an address it has not registered, so you were not sent there.',
    );
  }
  const state = parameters.state !== undefined && PRINTABLE_ASCII.test(parameters.state) ? parameters.state : undefined;
  const requestedType = parameters.response_type;
  const mode: ResponseType = requestedType === 'token' ? 'token' : 'code';
  const fail = (error: string, description: string) =>
    redirectBack(client.redirectUri, mode, { error, error_description: description, state });

  if (parameters.state !== undefined && state === undefined)
    return fail('invalid_request', 'state must be printable ASCII, at most 1024 characters');
  if (!requestedType) return fail('invalid_request', 'Missing parameter: response_type');
  if (requestedType !== 'code' && requestedType !== 'token')
    return fail('unsupported_response_type', 'response_type must be code or token');
  if (!client.grants.includes(REQUIRED_GRANT[mode] as never))
    return fail('unauthorized_client', `This client may not use response_type=${mode}`);
  const scope = grantedScope(parameters.scope?.split(' ').filter(Boolean));
  if (!scope) return fail('invalid_scope', 'scope must be read, write or both');

  const request: AuthorizationRequest = { client, responseType: mode, scope, state };
  if (mode === 'code' && (parameters.code_challenge || parameters.code_challenge_method)) {
    const method = parameters.code_challenge_method ?? 'plain';
    if (!parameters.code_challenge || !PKCE_CHALLENGE.test(parameters.code_challenge)) {
      return fail('invalid_request', 'code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]');
    }
    if (method !== 'S256' && method !== 'plain') return fail('invalid_request', 'code_challenge_method must be S256 or plain');
    request.codeChallenge = parameters.code_challenge;
    request.codeChallengeMethod = method;
  }
  return { kind: 'consent', request };
}

/** The parameters that travel from the consent page to the decision, already validated. */
export function consentFields(request: AuthorizationRequest): Record<string, string> {
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

export function createAuthorizeService(servers: OAuthServers, oauth: Config['oauth']) {
  async function issueCode(request: AuthorizationRequest, userId: string): Promise<Redirect> {
    const response = new OAuthResponse();
    try {
      await servers.variantA.authorize(libraryRequest(consentFields(request)), response, {
        authenticateHandler: { handle: () => ({ id: userId }) },
      });
    } catch (err) {
      // The library answers its own errors with a redirect to the (already verified) redirect_uri.
      if (!response.get('location')) throw err;
    }
    return { kind: 'redirect', location: String(response.get('location')) };
  }

  async function issueImplicitToken(request: AuthorizationRequest, userId: string): Promise<Redirect> {
    const accessToken = randomToken();
    const lifetime = oauth.v1AccessTokenLifetime;
    const client = toLibraryClient(request.client);
    await saveToken(
      { accessToken, accessTokenExpiresAt: new Date(Date.now() + lifetime * 1000), scope: request.scope, client, user: {} },
      client,
      {
        id: userId,
      },
    );
    // `token` is seed 001's name for the access token; the rest are RFC 6749 §4.2.2's.
    return redirectBack(request.client.redirectUri, 'token', {
      access_token: accessToken,
      token: accessToken,
      token_type: 'bearer',
      expires_in: String(lifetime),
      scope: request.scope.join(' '),
      state: request.state,
    });
  }

  return {
    /** Carries out the person's decision on a request that passed review again. */
    async decide(parameters: Parameters, userId: string): Promise<Redirect | Refusal> {
      const reviewed = await review(parameters);
      if (reviewed.kind !== 'consent') return reviewed;
      const { request } = reviewed;
      if (parameters.decision === 'deny') {
        return redirectBack(request.client.redirectUri, request.responseType, {
          error: 'access_denied',
          error_description: 'The user denied access',
          state: request.state,
        });
      }
      if (parameters.decision !== 'approve') return refusal('Invalid decision', 'Choose Approve or Deny.');
      return request.responseType === 'code' ? issueCode(request, userId) : issueImplicitToken(request, userId);
    },
  };
}

export type AuthorizeService = ReturnType<typeof createAuthorizeService>;
