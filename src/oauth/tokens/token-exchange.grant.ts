// grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693): a client exchanges a person's
// token it holds for a narrower one, as the operator's rule for the client and the target allows
// (exchange/exchange.service.ts). Two kinds:
// - an access token for a resource here: audience, scope and lifetime never wider than the subject
//   token's, the acting party in `act` when an actor token is given (delegation, §4.1);
// - an ID-JAG (requested_token_type ...:id-jag, the Identity Assertion Authorization Grant draft):
//   this server as the company's identity provider vouches, for the client's ID token, to another
//   authorization server that then takes it at its JWT bearer grant (jwt-bearer.grant.ts).
// Every exchange is an event of the person's.
import { isActive } from '../../users/users.service';
import * as exchangeService from '../exchange/exchange.service';
import { invalidGrant, invalidRequest, OAuthErrorResponse } from '../oauth.errors';
import { LIMITS, TOKEN_EXCHANGE_GRANT, TOKEN_TYPE } from '../protocol';
import { named, type Resource } from '../resources/resources.service';
import type { IssuedToken } from './issuing.service';
import { ensureProofBy, ensureScopeFor, required, type AgentContext, type GrantHandler, type TokenRequest } from './token-request';
import { actorOf, personToken } from './tokens.service';
import type { Actor } from './tokens.model';

const invalidTarget = (description: string) => new OAuthErrorResponse('invalid_target', description);

/** The scope asked for (all the rule and the subject allow, when none is), never beyond either: invalid_scope otherwise. */
function narrowed(requested: string | undefined, subject: readonly string[], allowed: readonly string[]): string[] {
  const most = subject.filter((scope) => allowed.includes(scope));
  const asked = requested?.split(' ').filter(Boolean) ?? [];
  const scope = asked.length === 0 ? most : [...new Set(asked)];
  const wider = scope.find((value) => !most.includes(value));
  if (wider !== undefined)
    throw new OAuthErrorResponse(
      'invalid_scope',
      `${wider.slice(0, 100)} is beyond what the token exchanged and this client's exchange rule allow`,
    );
  if (scope.length === 0)
    throw new OAuthErrorResponse('invalid_scope', "The token exchanged and this client's exchange rule have no scope in common");
  return scope;
}

/** RFC 8693 §2.1: `resource` and `audience` name the target; both may, if they agree. */
function targetOf(request: TokenRequest): string {
  const { resource, audience } = request.parameters;
  if (resource !== undefined && audience !== undefined && resource !== audience)
    throw invalidTarget('resource and audience name different targets');
  const target = resource ?? audience;
  if (target === undefined) throw invalidTarget('Name the target of the new token with resource or audience');
  return target;
}

/** The rule for this client and target, of the kind asked for; invalid_target without one. */
async function ruleFor(request: TokenRequest, audience: string, kind: exchangeService.ExchangeTokenType) {
  const rule = await exchangeService.policyFor(request.client._id, audience);
  if (!rule || rule.tokenType !== kind)
    throw invalidTarget(`This client may not exchange tokens for ${kind === 'id-jag' ? 'an ID-JAG for ' : ''}${audience.slice(0, 200)}`);
  return rule;
}

/** RFC 8693 §4.1: the new token's `act`: the actor token's party, who acted for the subject's own actor in turn. */
async function actingParty(request: TokenRequest, agents: AgentContext, subjectAct: Actor | undefined): Promise<Actor | undefined> {
  const { actor_token: token, actor_token_type: type } = request.parameters;
  if (token === undefined && type === undefined) return subjectAct;
  if (token === undefined || type === undefined) throw invalidRequest('actor_token and actor_token_type go together');
  if (type !== TOKEN_TYPE.accessToken) throw invalidRequest(`actor_token_type must be ${TOKEN_TYPE.accessToken}`);
  const actor = await actorOf(token, agents.liveness);
  if (!actor) throw invalidGrant('actor_token is not an active access token of this server');
  const { act: _ignored, ...party } = actor;
  return { ...party, ...(subjectAct && { act: subjectAct }) };
}

async function accessTokenExchange(request: TokenRequest, agents: AgentContext): Promise<IssuedToken> {
  const { parameters, client, proof } = request;
  if (required(parameters, 'subject_token_type') !== TOKEN_TYPE.accessToken)
    throw invalidRequest(`subject_token_type must be ${TOKEN_TYPE.accessToken} for an access token`);
  const target = targetOf(request);
  const found = await named({ publicUrl: request.issuer }, request.resources, target);
  if (!found || 'refused' in found) throw invalidTarget(found?.refused ?? 'Unknown target');
  const resource: Resource = found;
  const rule = await ruleFor(request, resource.id, 'access_token');
  const subject = await personToken(required(parameters, 'subject_token'), agents.liveness);
  if (!subject) throw invalidGrant('subject_token is not an active access token of this server acting for a person');
  if (rule.subjects === 'own' && subject.record.clientId !== client._id) throw invalidGrant('subject_token was issued to another client');
  ensureProofBy(subject.record.jkt, proof, 'The subject token');
  const scope = narrowed(parameters.scope, subject.scope, rule.scopes);
  ensureScopeFor(resource, scope);
  const act = await actingParty(request, agents, subject.record.act);
  const remaining = Math.floor((subject.record.accessTokenExpiresAt.getTime() - agents.clock.now()) / 1000);
  const issued = await request.issue(
    {
      client,
      person: subject.person,
      scope,
      grantType: TOKEN_EXCHANGE_GRANT,
      refreshToken: false,
      // Revoking what the subject token descends from ends this one too; it outlives nothing of it.
      familyId: subject.record.familyId,
      continues: true,
      authTime: subject.record.authTime,
      amr: subject.record.amr,
      jkt: proof?.jkt,
      resource: resource.own ? undefined : resource,
      act,
      maxLifetimeSeconds: Math.max(remaining, 1),
    },
    request.lifetimes,
  );
  await agents.record(subject.person._id, 'token-exchanged', {
    address: request.address,
    clientId: client._id,
    detail: `for ${resource.id} (${scope.join(' ')})${act ? ` acting: ${act.sub}` : ''}`,
  });
  return { ...issued, accessScope: issued.accessScope ?? scope, issuedTokenType: TOKEN_TYPE.accessToken };
}

async function idJagExchange(request: TokenRequest, agents: AgentContext): Promise<IssuedToken> {
  const { parameters, client } = request;
  if (required(parameters, 'subject_token_type') !== TOKEN_TYPE.idToken)
    throw invalidRequest(`subject_token_type must be ${TOKEN_TYPE.idToken} for an ID-JAG`);
  const audience = parameters.audience;
  if (audience === undefined) throw invalidTarget('Name the authorization server the ID-JAG is for with audience (its issuer)');
  const rule = await ruleFor(request, audience, 'id-jag');
  const idToken = await agents.idTokens.verifyIdToken(required(parameters, 'subject_token'), client._id, new Date(agents.clock.now()));
  if (!idToken) throw invalidGrant('subject_token is not an unexpired ID token this server issued to this client');
  const person = await agents.liveness.users.findCurrent(idToken.sub!);
  if (!isActive(person)) throw invalidGrant('The person of the ID token cannot be vouched for');
  const scope = narrowed(parameters.scope, rule.scopes, rule.scopes);
  const assertion = await agents.idTokens.signIdJag(
    {
      sub: person._id,
      client_id: rule.targetClientId,
      scope: scope.join(' '),
      ...(parameters.resource !== undefined && { resource: parameters.resource }),
      ...(idToken.auth_time !== undefined && { auth_time: idToken.auth_time }),
      ...(idToken.amr !== undefined && { amr: idToken.amr }),
      email: person.email,
    },
    audience,
  );
  await agents.record(person._id, 'token-exchanged', {
    address: request.address,
    clientId: client._id,
    detail: `ID-JAG for ${audience} (${scope.join(' ')})`,
  });
  return {
    accessToken: assertion,
    expiresIn: LIMITS.idJagLifetimeSeconds,
    scope,
    accessScope: scope,
    person,
    tokenType: 'N_A',
    issuedTokenType: TOKEN_TYPE.idJag,
  };
}

export const tokenExchangeGrant: GrantHandler = async (request) => {
  const agents = request.agents;
  if (!agents) throw new OAuthErrorResponse('unsupported_grant_type', 'Token exchange is not taken here');
  const requested = request.parameters.requested_token_type ?? TOKEN_TYPE.accessToken;
  if (requested === TOKEN_TYPE.idJag) return idJagExchange(request, agents);
  if (requested !== TOKEN_TYPE.accessToken)
    throw invalidRequest(`requested_token_type must be ${TOKEN_TYPE.accessToken} or ${TOKEN_TYPE.idJag}`);
  return accessTokenExchange(request, agents);
};
