// What the request asks for: the resource (RFC 8707: one, registered, else invalid_target) and the
// scope (this server's, or the resource's own; invalid_scope otherwise), and the nonce an ID token
// from this endpoint needs (OIDC Core §3.2.2.1, §3.3.2.11).
import * as resourcesService from '../../resources/resources.service';
import { grantedScope, SCOPE_ERROR } from '../../protocol';
import { invalid, type Check } from './check';

export const checkResource: Check = async (review, { config, stores }) => {
  const resource = await resourcesService.named(config, stores.resources, review.parameters.resource);
  if (resource && 'refused' in resource) return { error: 'invalid_target', description: resource.refused };
  review.request.resource = resource ?? undefined;
  return undefined;
};

export const checkScope: Check = (review) => {
  const { resource } = review.request;
  const scope = grantedScope(review.parameters.scope, resourcesService.extraScopes(resource));
  if (!scope) return { error: 'invalid_scope', description: SCOPE_ERROR };
  if (resource && resourcesService.scopeFor(resource, scope).length === 0)
    return { error: 'invalid_scope', description: `${resource.id} accepts none of these scopes (it accepts ${resource.scopes.join(' ')})` };
  review.request.scope = scope;
  return undefined;
};

export const checkNonce: Check = (review) => {
  const { responseType, scope } = review.request;
  const nonce = review.parameters.nonce;
  if (responseType!.split(' ').includes('id_token') && (!scope!.includes('openid') || !nonce))
    return invalid(`response_type ${responseType} needs the openid scope and a nonce`);
  review.request.nonce = nonce;
  return undefined;
};
