// grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer (RFC 7523 §2.1) with an Identity Assertion
// JWT Authorization Grant: a company's identity provider the operator trusts (trusted-issuers.ts)
// vouches for a person linked to it here, for the client it names; the client gets an access token
// for the resource the assertion names, acting for that person. Each assertion is taken once.
import { isActive } from '../../users/users.service';
import { linkedUserId } from '../../upstream/upstream.service';
import { useOnce } from '../clients/client-assertions.service';
import { invalidGrant, OAuthErrorResponse } from '../oauth.errors';
import { JWT_BEARER_GRANT, LIMITS } from '../protocol';
import { named } from '../resources/resources.service';
import { AssertionRefused } from './trusted-issuers';
import { ensureScopeFor, requestedScope, required, type GrantHandler } from './token-request';

export const jwtBearerGrant: GrantHandler = async (request) => {
  const { agents, parameters, client, proof } = request;
  if (!agents) throw new OAuthErrorResponse('unsupported_grant_type', 'The JWT bearer grant is not taken here');
  const assertion = required(parameters, 'assertion');
  let verified;
  try {
    verified = await agents.trusted.verify(assertion, new Date(agents.clock.now()));
  } catch (err) {
    if (err instanceof AssertionRefused) throw invalidGrant(err.message);
    throw err;
  }
  const { provider, payload } = verified;
  if (payload.client_id !== client._id) throw invalidGrant('The assertion is for another client');
  // The resource the assertion names (a request may repeat it, not change it).
  const assertedResource = typeof payload.resource === 'string' ? payload.resource : undefined;
  if (parameters.resource !== undefined && assertedResource !== undefined && parameters.resource !== assertedResource)
    throw new OAuthErrorResponse('invalid_target', 'resource must be the one the assertion names');
  const found = await named({ publicUrl: request.issuer }, request.resources, assertedResource ?? parameters.resource);
  if (found && 'refused' in found) throw new OAuthErrorResponse('invalid_target', found.refused);
  const resource = found;
  // The scope the assertion grants, or the part of it the request asks for.
  const granted = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
  const asked = parameters.scope?.split(' ').filter(Boolean) ?? granted;
  const wider = asked.find((scope) => !granted.includes(scope));
  if (wider !== undefined || asked.length === 0)
    throw new OAuthErrorResponse('invalid_scope', 'The scope must be within what the assertion grants');
  const scope = requestedScope({ ...parameters, scope: asked.join(' ') }, resource);
  ensureScopeFor(resource, scope);
  const userId = await linkedUserId(provider.id, payload.sub);
  const person = userId ? await agents.liveness.users.findCurrent(userId) : null;
  if (!person || !isActive(person)) throw invalidGrant(`No active account here is linked to that person at ${provider.name}`);
  // Taken once, here or on any instance, for as long as it could be presented.
  const expiresAt = new Date((payload.exp + LIMITS.jwtClockToleranceSeconds) * 1000);
  if (!(await useOnce(`id-jag ${provider.issuer} ${payload.jti}`, expiresAt))) throw invalidGrant('The assertion was used already');
  const issued = await request.issue(
    {
      client,
      person,
      scope,
      grantType: JWT_BEARER_GRANT,
      refreshToken: false,
      authTime: typeof payload.auth_time === 'number' ? new Date(payload.auth_time * 1000) : undefined,
      amr: ['fed'],
      jkt: proof?.jkt,
      resource,
    },
    request.lifetimes,
  );
  await agents.record(person._id, 'assertion-accepted', {
    address: request.address,
    clientId: client._id,
    detail: `from ${provider.name}`,
  });
  return issued;
};
