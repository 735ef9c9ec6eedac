// The rules of the authorization endpoint (RFC 6749 §4.1 and §4.2, PKCE per RFC 7636, OpenID Connect
// Core §3.1.2). An unknown client or a redirect_uri other than a registered one is refused without a
// redirect (§4.1.2.1); every other error goes back to the client with `error`, `state` and RFC 9207's
// `iss`. The service returns what to do; the controller turns it into a response.
import { systemClock, type Clock } from '../../common/clock';
import type { Config } from '../../config';
import * as usersService from '../../users/users.service';
import type { ClientDocument } from '../clients/clients.model';
import * as clientsService from '../clients/clients.service';
import { isFapi, isMessageSigning, requiresSignedRequestObject } from '../clients/fapi.service';
import * as grantsService from '../grants/grants.service';
import * as claimsService from '../oidc/claims.service';
import type { RequestedClaims } from '../oidc/claims.service';
import type { OAuthParameters } from '../oauth.parameters';
import * as factorsService from '../../factors/factors.service';
import {
  acrOf,
  ENDPOINTS,
  FAPI_CODE_LIFETIME_SECONDS,
  JWK_THUMBPRINT,
  PUSHED_REQUEST_URI_PREFIX,
  grantedScope,
  MULTI_FACTOR_ACR,
  PKCE_METHODS,
  PKCE_VALUE,
  PROMPTS,
  allowsResponseType,
  RESPONSE_MODES,
  RESPONSE_TYPES,
  SCOPE_ERROR,
  STATE_VALUE,
  type PkceMethod,
  type ResponseMode,
  type ResponseType,
} from '../protocol';
import * as codesService from '../tokens/codes.service';
import { applyRequestObject, type AppliedRequestObject } from './request-object';
import { fetchRequestObject } from './request-uri';
import * as pushedRequests from './pushed-requests.store';
import type { BackchannelLogout } from '../oidc/backchannel.service';
import { implicitResponse, issue, type IssuedToken } from '../tokens/issuing.service';
import type { IdTokens } from '../oidc/id-tokens.service';
import * as resourcesService from '../resources/resources.service';
import type { Resource } from '../resources/resources.service';
import type { JwtAccessTokens } from '../tokens/jwt-access-tokens.service';
import type { Stores } from '../../stores';

/** What the authorization endpoint signs: ID tokens, and JARM responses. */
export type AuthorizationSigner = Pick<IdTokens, 'sign' | 'signAuthorizationResponse'>;

export interface AuthorizationRequest {
  client: ClientDocument;
  redirectUri: string;
  responseType: ResponseType;
  responseMode: ResponseMode;
  scope: string[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: PkceMethod;
  /** OpenID Connect `prompt`, as a set of values. */
  prompt: string[];
  /** Seconds since the person signed in after which they must sign in again. */
  maxAge?: number;
  loginHint?: string;
  /** What the `claims` parameter asked for (OIDC Core §5.5). */
  claims?: RequestedClaims;
  /** OpenID Connect `acr_values`: the classes the client would like, in order of preference. */
  acrValues?: string[];
  /** The request_uri of a pushed request (RFC 9126) this request came from: used up when it is answered. */
  pushedUri?: string;
  /** RFC 9449 §10 `dpop_jkt`: the code may be exchanged only with a DPoP proof by this key. */
  dpopJkt?: string;
  /** RFC 8707: the resource (API) the tokens are for. */
  resource?: Resource;
}

/**
 * Whether the client asks for the multi-factor class (docs/oauth.md, Claims): as essential (the
 * `claims` parameter's `acr` with `essential: true`), as a wish (`acr_values`, or a voluntary `acr`
 * claim), or not at all.
 */
function multiFactorWanted(request: AuthorizationRequest): 'essential' | 'voluntary' | null {
  const acr = request.claims?.acr;
  if (acr?.values.includes(MULTI_FACTOR_ACR)) return acr.essential ? 'essential' : 'voluntary';
  return request.acrValues?.includes(MULTI_FACTOR_ACR) ? 'voluntary' : null;
}

/** A request that may go on to the consent page. */
export interface Consent {
  kind: 'consent';
  request: AuthorizationRequest;
  /** The parameters as reviewed (a request object's applied): what a return after sign-in carries. */
  parameters: OAuthParameters;
}

/**
 * Back to the client, with a result or an error: a redirect, or for response_mode=form_post a page
 * that posts the values to the redirect URI.
 */
export type Redirect = ({ kind: 'redirect'; location: string } | { kind: 'form_post'; action: string; fields: Record<string, string> }) & {
  /** What an error response says, for an endpoint that answers it otherwise (PAR answers in JSON). */
  error?: { error: string; error_description?: string };
};

/** Refused on a page of this server: there is no client address it is safe to send the browser to. */
export interface Refusal {
  kind: 'refusal';
  title: string;
  message: string;
  /** The protocol's error code, for an endpoint that answers it otherwise (PAR answers in JSON). */
  error?: string;
}

/** Who is signed in, and when they signed in. */
export interface SignedIn {
  userId: string;
  authTime?: Date;
  /** How the person signed in (RFC 8176 values). */
  amr?: string[];
  /** The browser session's OpenID Connect `sid` (back-channel logout). */
  sid?: string;
}

/** Where an authorization request's parameters come from, when not straight from the browser. */
export interface RequestSource {
  /** They are being pushed (POST /oauth/par): checked now, answered later. */
  pushing?: boolean;
  /** They are those of this pushed request. */
  pushedUri?: string;
  /** The client address the request came from: what a request_uri's fetches count against. */
  address?: string;
  /** They came in a signed request object (RFC 9101 §10.5: what require_signed_request_object asks). */
  signedObject?: boolean;
}

export const refusal = (title: string, message: string, error?: string): Refusal => ({
  kind: 'refusal',
  title,
  message,
  ...(error && { error }),
});

export function createAuthorizeService(
  config: Config,
  idTokens: AuthorizationSigner,
  backchannel: Pick<BackchannelLogout, 'granted'>,
  jwts: JwtAccessTokens,
  stores: Pick<Stores, 'clients' | 'clientKeySets' | 'consents' | 'resources'>,
  clock: Clock = systemClock,
) {
  /**
   * Sends the browser back to the client, with RFC 9207's `iss` on every response; in a JARM mode the
   * values (and `iss`, `aud`, `exp`) are one JWT signed for the client, sent as `response`.
   */
  async function redirectBack(
    { redirectUri, responseMode: mode, client }: Pick<AuthorizationRequest, 'redirectUri' | 'responseMode' | 'client'>,
    values: Record<string, string | undefined>,
  ): Promise<Redirect> {
    const url = new URL(redirectUri);
    const present = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined);
    const [carrier, jarm] = mode.split('.') as ['query' | 'fragment' | 'form_post', 'jwt' | undefined];
    const entries: [string, string][] = jarm
      ? [
          [
            'response',
            await idTokens.signAuthorizationResponse(
              Object.fromEntries(present),
              client._id,
              client.metadata?.authorization_signed_response_alg,
            ),
          ],
        ]
      : [...present, ['iss', config.publicUrl]];
    const error = values.error === undefined ? {} : { error: { error: values.error, error_description: values.error_description } };
    if (carrier === 'form_post') return { kind: 'form_post', action: redirectUri, fields: Object.fromEntries(entries), ...error };
    if (carrier === 'query') entries.forEach(([name, value]) => url.searchParams.set(name, value));
    else url.hash = new URLSearchParams(entries).toString();
    return { kind: 'redirect', location: url.toString(), ...error };
  }

  /** A request object by value or fetched from a registered request_uri, applied; or why it is refused (the error code too). */
  async function openRequestObject(
    client: ClientDocument,
    parameters: OAuthParameters,
    address: string,
  ): Promise<AppliedRequestObject | { error: string; description: string }> {
    let request = parameters.request;
    if (parameters.request_uri !== undefined) {
      if (request !== undefined) return { error: 'invalid_request', description: 'send request or request_uri, not both' };
      const fetched = await fetchRequestObject(config, client, parameters.request_uri, address);
      if ('refused' in fetched) return { error: 'invalid_request_uri', description: fetched.refused };
      request = fetched.jwt;
    }
    const { request_uri: _reference, ...rest } = parameters;
    const applied = await applyRequestObject(
      client,
      { ...rest, request: request },
      clientsService.jwtContext(config, stores.clientKeySets),
    );
    return typeof applied === 'string' ? { error: 'invalid_request_object', description: applied } : applied;
  }

  /**
   * Checks an authorization request in the order RFC 6749 §4.1.2.1 asks for. `signedIn` says whether
   * a person is signed in to this browser: a client registered by anyone (it has an owner) is not
   * trusted to receive an anonymous visitor's error redirect, so such a visitor gets the error on a page
   * of ours instead (RFC 9700 §4.11.2: otherwise the endpoint is an open redirector). `source` says
   * whether the parameters are being pushed (RFC 9126) or are those of a pushed request.
   */
  async function review(parameters: OAuthParameters, signedIn: boolean, source: RequestSource = {}): Promise<Consent | Redirect | Refusal> {
    const { pushedUri } = source;
    const client = parameters.client_id ? await stores.clients.find(parameters.client_id) : null;
    // Outside production the page also says what a developer needs to fix the request.
    const detail = (text: string) => (config.isProduction ? '' : ` ${text}`);
    if (!client) {
      return refusal(
        'Unknown application',
        'The application that sent you here is not registered with this server.' +
          detail(
            parameters.client_id
              ? `(client_id "${parameters.client_id.slice(0, 200)}" is not a registered client.)`
              : '(The request has no client_id.)',
          ),
      );
    }
    // A pushed request (RFC 9126 §4): what the client pushed is the request; its request_uri is what
    // travels on (to sign-in, a step-up and the consent form), so every return finds it again.
    const pushed =
      pushedUri === undefined && !source.pushing && parameters.request_uri?.startsWith(PUSHED_REQUEST_URI_PREFIX)
        ? parameters.request_uri
        : undefined;
    const stored = pushed === undefined ? null : await pushedRequests.open(client._id, pushed, new Date(clock.now()));
    if (pushed && stored) {
      const reviewed = await review(stored, signedIn, { pushedUri: pushed, address: source.address });
      return reviewed.kind === 'consent' ? { ...reviewed, parameters: { client_id: client._id, request_uri: pushed } } : reviewed;
    }
    // Request objects (OIDC Core §6), by value or by reference: read before anything else of the
    // request, the redirect URI included (RFC 9101 §6.3: with several registered, the object names
    // it); the request is reviewed again with its parameters. Refused, the query's redirect URI (when
    // it is a registered one) is told why.
    let objectRefused: { error: string; description: string } | undefined;
    if (pushed === undefined && (parameters.request_uri !== undefined || parameters.request !== undefined)) {
      const opened = await openRequestObject(client, parameters, source.address ?? '');
      if ('parameters' in opened) return review(opened.parameters, signedIn, { ...source, signedObject: opened.signed });
      objectRefused = opened;
    }
    const registered = clientsService.redirectUrisOf(client);
    const redirectUri =
      parameters.redirect_uri === undefined
        ? registered.length === 1
          ? registered[0]
          : null
        : clientsService.registeredRedirectUri(client, parameters.redirect_uri);
    if (!redirectUri && objectRefused) {
      return refusal(
        'Invalid request object',
        `${client.name} sent a request that cannot be read (${objectRefused.error}): ${objectRefused.description}`,
        objectRefused.error,
      );
    }
    if (!redirectUri) {
      return refusal(
        'Invalid redirect address',
        'The application asked to send you to an address it has not registered, so you were not sent there.' +
          detail(
            `(${parameters.redirect_uri === undefined ? 'No redirect_uri was sent, and the client has several' : `Sent: ${parameters.redirect_uri.slice(0, 300)}`}. ` +
              `Registered for ${client._id}: ${registered.join(', ')}. The redirect_uri must be one of them exactly.)`,
          ),
      );
    }
    const state = parameters.state !== undefined && STATE_VALUE.test(parameters.state) ? parameters.state : undefined;
    const requestedType = parameters.response_type;
    // The order of the values of a response type does not matter (OAuth 2.0 Multiple Response Types).
    const spelled = requestedType?.split(' ').filter(Boolean).sort().join(' ');
    const known = RESPONSE_TYPES.find((type) => type === spelled);
    const responseType: ResponseType = known ?? 'code';
    // Tokens never travel in the query, not even beside an error (nor signed: JARM §2.3.1); form_post
    // suits every response type; `jwt` (JARM) signs the answer in the carrier the type would get.
    // FAPI 2.0 Message Signing §5.4: its clients' answers are signed (JARM), `jwt` when they name no mode.
    const requestedMode = parameters.response_mode ?? (isMessageSigning(client) ? 'jwt' : undefined);
    const signedMode = requestedMode === 'jwt' || requestedMode?.endsWith('.jwt') === true;
    const wantedCarrier = requestedMode?.replace(/\.?jwt$/, '');
    const carrier =
      wantedCarrier === 'form_post' ? 'form_post' : responseType !== 'code' || wantedCarrier === 'fragment' ? 'fragment' : 'query';
    const responseMode: ResponseMode = signedMode ? `${carrier}.jwt` : carrier;
    const trusted = signedIn || client.ownerId === undefined;
    const fail = async (error: string, description: string): Promise<Redirect | Refusal> =>
      trusted
        ? redirectBack({ redirectUri, responseMode, client }, { error, error_description: description, state })
        : refusal('Invalid authorization request', `${client.name} sent an invalid request (${error}): ${description}`);

    if (objectRefused) return fail(objectRefused.error, objectRefused.description);
    if (pushed) return fail('invalid_request_uri', 'the pushed request is not known for this client, has expired or was used');
    if (
      pushedUri === undefined &&
      !source.pushing &&
      (config.oauth.requirePushedRequests || client.metadata?.require_pushed_authorization_requests)
    ) {
      return fail('invalid_request', `authorization requests must be pushed first (${ENDPOINTS.pushedAuthorization}, RFC 9126)`);
    }
    // RFC 9101 §10.5 (and FAPI 2.0 Message Signing §5.3.1): checked where the request is made, at PAR for a pushed one.
    if (pushedUri === undefined && !source.signedObject && requiresSignedRequestObject(client)) {
      return fail(
        'invalid_request',
        'this client must send its authorization requests as signed request objects (require_signed_request_object)',
      );
    }
    if (parameters.state !== undefined && state === undefined)
      return fail('invalid_request', 'state must be printable ASCII, at most 1024 characters');
    if (!requestedType) return fail('invalid_request', 'Missing parameter: response_type');
    if (!known) return fail('unsupported_response_type', `response_type must be one of ${RESPONSE_TYPES.join(', ')}`);
    if (requestedMode !== undefined && requestedMode !== 'jwt' && requestedMode !== responseMode) {
      return fail('invalid_request', `response_mode must be one of ${RESPONSE_MODES.join(', ')} (never query for tokens)`);
    }
    if (isMessageSigning(client) && !signedMode)
      return fail('invalid_request', 'a FAPI 2.0 Message Signing client gets signed responses: response_mode jwt (JARM)');
    const parts = responseType.split(' ');
    if (!allowsResponseType(client.grants, responseType))
      return fail('unauthorized_client', `This client may not use response_type=${responseType}`);
    const resource = await resourcesService.named(config, stores.resources, parameters.resource);
    if (resource && 'refused' in resource) return fail('invalid_target', resource.refused);
    const scope = grantedScope(parameters.scope, resourcesService.extraScopes(resource));
    if (!scope) return fail('invalid_scope', SCOPE_ERROR);
    if (resource && resourcesService.scopeFor(resource, scope).length === 0)
      return fail('invalid_scope', `${resource.id} accepts none of these scopes (it accepts ${resource.scopes.join(' ')})`);
    // OIDC Core §3.2.2.1 and §3.3.2.11: an ID token from the authorization endpoint carries the nonce.
    if (parts.includes('id_token') && (!scope.includes('openid') || !parameters.nonce)) {
      return fail('invalid_request', `response_type ${responseType} needs the openid scope and a nonce`);
    }
    const prompt = parameters.prompt?.split(' ').filter(Boolean) ?? [];
    if (!prompt.every((value) => (PROMPTS as readonly string[]).includes(value)) || (prompt.includes('none') && prompt.length > 1)) {
      return fail('invalid_request', 'prompt must be none, or any of login, consent and select_account');
    }
    const claims = parameters.claims === undefined ? undefined : claimsService.parseClaimsParameter(parameters.claims);
    if (typeof claims === 'string') return fail('invalid_request', claims);
    if (parameters.dpop_jkt !== undefined && !JWK_THUMBPRINT.test(parameters.dpop_jkt))
      return fail('invalid_request', 'dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters)');
    const maxAge = parameters.max_age === undefined ? undefined : Number(parameters.max_age);
    if (maxAge !== undefined && !(Number.isSafeInteger(maxAge) && maxAge >= 0))
      return fail('invalid_request', 'max_age must be a number of seconds');

    const request: AuthorizationRequest = {
      client,
      redirectUri,
      responseType,
      responseMode,
      scope,
      state,
      nonce: parameters.nonce,
      prompt,
      maxAge,
      loginHint: parameters.login_hint,
      claims,
      acrValues: parameters.acr_values?.split(' ').filter(Boolean),
      pushedUri,
      dpopJkt: parameters.dpop_jkt,
      resource,
    };
    if (parts.includes('code') && (parameters.code_challenge || parameters.code_challenge_method)) {
      const method = parameters.code_challenge_method ?? 'plain';
      if (!parameters.code_challenge || !PKCE_VALUE.test(parameters.code_challenge)) {
        return fail('invalid_request', 'code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]');
      }
      if (!(PKCE_METHODS as readonly string[]).includes(method)) {
        return fail('invalid_request', `code_challenge_method must be one of ${PKCE_METHODS.join(', ')}`);
      }
      request.codeChallenge = parameters.code_challenge;
      request.codeChallengeMethod = method as PkceMethod;
    }
    // RFC 9700 §2.1.1: a client without a secret proves with PKCE that it is the one that started.
    if (clientsService.isPublic(client) && request.codeChallengeMethod !== 'S256') {
      return fail('invalid_request', 'Public clients must send a code_challenge with code_challenge_method=S256');
    }
    // FAPI 2.0 §5.3.2.2: PKCE with S256, and the redirect_uri named in every request.
    if (isFapi(client) && request.codeChallengeMethod !== 'S256') {
      return fail('invalid_request', 'FAPI 2.0 clients must send a code_challenge with code_challenge_method=S256');
    }
    if (isFapi(client) && parameters.redirect_uri === undefined) {
      return fail('invalid_request', 'FAPI 2.0 clients must send redirect_uri');
    }
    return { kind: 'consent', request, parameters };
  }

  /**
   * What a signed-in person (or nobody) gets instead of or before the consent page: `prompt=login` or
   * an expired `max_age` sends the person to sign in again; consent they gave before for these scopes
   * answers at once (unless `prompt=consent`); `prompt=none` never shows a page.
   */
  async function beforeConsent(
    request: AuthorizationRequest,
    person: SignedIn | null,
  ): Promise<Redirect | 'sign-in' | 'step-up' | 'consent'> {
    const age = person?.authTime ? (clock.now() - person.authTime.getTime()) / 1000 : Infinity;
    const mustSignIn = !person || request.prompt.includes('login') || (request.maxAge !== undefined && age > request.maxAge);
    // A client asking for the multi-factor class: a person signed in with one factor gives their
    // second (a step-up); one who has none goes on at class 1, unless the client made it essential.
    const wanted = mustSignIn ? null : multiFactorWanted(request);
    if (wanted && acrOf(person!.amr) !== MULTI_FACTOR_ACR) {
      if (request.prompt.includes('none')) {
        return redirectBack(request, {
          error: 'interaction_required',
          error_description: 'prompt=none: the person would have to give a second factor',
          state: request.state,
        });
      }
      if (await factorsService.hasSecondFactor(person!.userId)) return 'step-up';
      if (wanted === 'essential') {
        return redirectBack(request, {
          error: 'access_denied',
          error_description: 'acr 2 was essential and the person has no second factor (they can add one on their account page)',
          state: request.state,
        });
      }
    }
    const remembered =
      !mustSignIn &&
      !request.prompt.includes('consent') &&
      (await grantsService.covers(stores.consents, person.userId, request.client._id, [
        ...request.scope,
        ...claimsService.scopesForClaims(request.scope, request.claims),
      ]));
    if (remembered) return issueFor(request, person);
    if (request.prompt.includes('none')) {
      const error = mustSignIn ? 'login_required' : 'consent_required';
      return redirectBack(request, {
        error,
        error_description: `prompt=none: ${error}`,
        state: request.state,
      });
    }
    return mustSignIn ? 'sign-in' : 'consent';
  }

  /** Approved (now or before): back to the client with a code, or the implicit flow's tokens. */
  async function issueFor(request: AuthorizationRequest, signedIn: SignedIn): Promise<Redirect> {
    // A pushed request answers once: of two browsers (or tabs) finishing it, one gets the code.
    if (request.pushedUri && !(await pushedRequests.take(request.pushedUri))) {
      return redirectBack(request, {
        error: 'invalid_request_uri',
        error_description: 'the pushed request was used already',
        state: request.state,
      });
    }
    if (signedIn.sid) await backchannel.granted(signedIn.sid, signedIn.userId, request.client);
    // What the response type asks for: a code, an access token, an ID token (hybrid: a code and more).
    const parts = new Set(request.responseType.split(' '));
    const code = !parts.has('code')
      ? undefined
      : await codesService.issue(
          {
            clientId: request.client._id,
            userId: signedIn.userId,
            redirectUri: request.redirectUri,
            scope: request.scope,
            codeChallenge: request.codeChallenge,
            codeChallengeMethod: request.codeChallengeMethod,
            nonce: request.nonce,
            authTime: signedIn.authTime,
            amr: signedIn.amr,
            sid: signedIn.sid,
            claims: request.claims,
            dpopJkt: request.dpopJkt,
            resource: request.resource?.id,
          },
          isFapi(request.client) ? FAPI_CODE_LIFETIME_SECONDS : undefined,
        );
    if (request.responseType === 'code') return redirectBack(request, { code, state: request.state });
    const person = await usersService.findById(signedIn.userId);
    if (!person) return redirectBack(request, { error: 'login_required', state: request.state });
    const issued: IssuedToken | null = !parts.has('token')
      ? null
      : await issue(
          {
            client: request.client,
            person,
            scope: request.scope,
            grantType: 'implicit',
            refreshToken: false,
            authTime: signedIn.authTime,
            amr: signedIn.amr,
            claims: request.claims,
            resource: request.resource,
          },
          { accessToken: config.oauth.v1AccessTokenLifetime, refreshToken: config.oauth.refreshTokenLifetime },
          jwts,
        );
    // Without an access token there is no userinfo to ask: the scopes' claims go in the ID token (OIDC Core §5.4).
    const idTokenClaims = [
      ...(request.responseType === 'id_token' ? claimsService.scopeClaims(request.scope) : claimsService.idTokenScopeClaims(request.scope)),
      ...(request.claims?.id_token ?? []),
    ];
    // Its at_hash and c_hash tie it to the access token and the code beside it (OIDC Core §3.3.2.11).
    const idToken = parts.has('id_token')
      ? await idTokens.sign({
          user: person,
          clientId: request.client._id,
          algorithm: request.client.metadata?.id_token_signed_response_alg,
          claims: idTokenClaims,
          authTime: signedIn.authTime,
          amr: signedIn.amr,
          sid: signedIn.sid,
          nonce: request.nonce,
          accessToken: issued?.accessToken,
          code,
        })
      : undefined;
    return redirectBack(request, {
      code,
      ...implicitResponse(issued, idToken, request.responseType === 'token'),
      state: request.state,
    });
  }

  return {
    review,
    beforeConsent,

    /**
     * Carries out the person's decision on the request the consent page showed (its parameters kept
     * by the server, never re-sent by the browser): reviewed again, and an approval goes through the
     * same checks as the page did (prompt, max_age, acr), so what changed since is not skipped.
     */
    async decide(
      parameters: OAuthParameters,
      decision: unknown,
      person: SignedIn,
      address: string,
    ): Promise<Redirect | Refusal | 'sign-in' | 'step-up'> {
      const reviewed = await review(parameters, true, { address });
      if (reviewed.kind !== 'consent') return reviewed;
      const { request } = reviewed;
      if (decision === 'deny') {
        if (request.pushedUri) await pushedRequests.take(request.pushedUri);
        return redirectBack(request, {
          error: 'access_denied',
          error_description: 'The user denied access',
          state: request.state,
        });
      }
      if (decision !== 'approve') return refusal('Invalid decision', 'Choose Approve or Deny.');
      const next = await beforeConsent(request, person);
      if (next !== 'consent') return next;
      await grantsService.remember(stores.consents, person.userId, request.client._id, request.scope);
      return issueFor(request, person);
    },
  };
}

export type AuthorizeService = ReturnType<typeof createAuthorizeService>;
