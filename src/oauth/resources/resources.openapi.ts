// The admin API's resources (RFC 8707 APIs), for access tokens with the admin scope.
import { NEW_RESOURCE, RESOURCES_QUERY } from './resources.service';
import { bodySchemaOf, queryParametersOf } from '../../common/request-fields';
import {
  adminBodyRefusals,
  adminRefusals,
  adminSecurity,
  empty,
  int,
  json,
  jsonRequest,
  pathParam,
  ref,
  str,
  type OpenApiFragment,
} from '../../openapi/openapi.kit';
import { ADMIN_API, RESOURCE_FORMATS, SIGNING_ALGORITHMS } from '../protocol';

const security = adminSecurity;
const refusals = adminRefusals;

export const resourcesOpenApi: OpenApiFragment = {
  paths: {
    [ADMIN_API.resources]: {
      get: {
        tags: ['Admin'],
        operationId: 'listResources',
        summary: 'The registered resources (APIs), in identifier order, a page at a time',
        security,
        parameters: queryParametersOf(RESOURCES_QUERY),
        responses: {
          '200': json(ref('ResourcePage'), 'One page; next is null on the last'),
          '400': json(ref('OAuthError'), 'invalid_request: a bad limit or after'),
          ...refusals,
        },
      },
      post: {
        tags: ['Admin'],
        operationId: 'createResource',
        summary: 'Registers a resource: clients name it in `resource` and get tokens for it alone',
        security,
        requestBody: jsonRequest(ref('NewResource'), { resource: 'https://orders.example.com/api', scopes: ['orders:read'] }),
        responses: {
          '201': json(ref('Resource'), 'Registered'),
          '400': json(ref('OAuthError'), 'invalid_request: what is wrong with the input, or a body that is not JSON'),
          '409': json(ref('OAuthError'), 'invalid_request: a resource with that identifier is registered already'),
          ...refusals,
          ...adminBodyRefusals,
        },
      },
    },
    [`${ADMIN_API.resources}/{id}`]: {
      delete: {
        tags: ['Admin'],
        operationId: 'deleteResource',
        summary: 'Forgets a resource; tokens issued for it live out their time',
        security,
        parameters: [pathParam('id', 'The resource identifier, URL-encoded')],
        responses: { '204': empty('Deleted'), '404': json(ref('OAuthError'), 'not_found'), ...refusals },
      },
    },
  },
  schemas: {
    Resource: {
      type: 'object',
      required: ['resource', 'scopes', 'format', 'access_token_lifetime', 'signing_alg'],
      properties: {
        resource: str,
        scopes: { type: 'array', items: str },
        format: { type: 'string', enum: [...RESOURCE_FORMATS] },
        access_token_lifetime: int,
        signing_alg: { type: 'string', enum: [...SIGNING_ALGORITHMS] },
      },
      additionalProperties: false,
    },
    NewResource: bodySchemaOf(NEW_RESOURCE.fields, NEW_RESOURCE.required),
    ResourcePage: {
      type: 'object',
      required: ['resources', 'next'],
      properties: { resources: { type: 'array', items: ref('Resource') }, next: { type: ['string', 'null'] } },
      additionalProperties: false,
    },
  },
};
