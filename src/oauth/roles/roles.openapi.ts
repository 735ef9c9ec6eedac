// The admin API's roles (docs/oauth.md, Roles), for access tokens with the admin scope.
import { bodySchemaOf, queryParametersOf } from '../../common/request-fields';
import {
  adminBodyRefusals,
  adminRefusals,
  adminSecurity as security,
  empty,
  json,
  jsonRequest,
  pathParam,
  ref,
  str,
  type OpenApiFragment,
} from '../../openapi/openapi.kit';
import { ADMIN_API } from '../protocol';
import { NEW_ROLE, ROLE_RULES, ROLES_QUERY } from './roles.service';

const tags = ['Admin'];
const name = { ...pathParam('name', `A role's name: ${ROLE_RULES.nameText}`), schema: { type: 'string', maxLength: ROLE_RULES.maxName } };
const person = pathParam('id', "A person's id");
const notFound = json(ref('OAuthError'), 'not_found: no such person or role');

export const rolesOpenApi: OpenApiFragment = {
  paths: {
    [ADMIN_API.roles]: {
      get: {
        tags,
        operationId: 'listRoles',
        summary: 'The roles, admin first, then in name order, a page at a time',
        security,
        parameters: queryParametersOf(ROLES_QUERY),
        responses: {
          '200': json(ref('RolePage'), 'One page; next is null on the last'),
          '400': json(ref('OAuthError'), 'invalid_request: a bad limit or after'),
          ...adminRefusals,
        },
      },
      post: {
        tags,
        operationId: 'createRole',
        summary: `Defines a role (at most ${ROLE_RULES.max}) that people can be given`,
        security,
        requestBody: jsonRequest(ref('NewRole'), { name: 'editor', description: 'Edits the catalogue' }),
        responses: {
          '201': json(ref('Role'), 'Defined'),
          '400': json(ref('OAuthError'), 'invalid_request: a bad name or description, or the limit reached'),
          '409': json(ref('OAuthError'), 'invalid_request: a role of that name exists (admin is built in)'),
          ...adminRefusals,
          ...adminBodyRefusals,
        },
      },
    },
    [`${ADMIN_API.roles}/{name}`]: {
      delete: {
        tags,
        operationId: 'deleteRole',
        summary: 'Deletes a role and takes it from everyone who held it',
        security,
        parameters: [name],
        responses: {
          '204': empty('Deleted'),
          '404': notFound,
          '409': json(ref('OAuthError'), 'invalid_request: admin is built in'),
          ...adminRefusals,
        },
      },
    },
    [`${ADMIN_API.people}/{id}/roles`]: {
      get: {
        tags,
        operationId: 'rolesOfPerson',
        summary: "A person's roles, as the roles claim gives them",
        security,
        parameters: [person],
        responses: { '200': json(ref('PersonRoles'), 'The roles'), '404': notFound, ...adminRefusals },
      },
    },
    [`${ADMIN_API.people}/{id}/roles/{name}`]: {
      parameters: [person, name],
      put: {
        tags,
        operationId: 'giveRole',
        summary: 'Gives the person a role (admin sets permission flag 8); an event in their activity',
        security,
        responses: { '204': empty('Given (or held already)'), '404': notFound, ...adminRefusals },
      },
      delete: {
        tags,
        operationId: 'takeRole',
        summary: 'Takes a role from the person (admin clears permission flag 8); an event in their activity',
        security,
        responses: { '204': empty('Taken (or not held)'), '404': notFound, ...adminRefusals },
      },
    },
  },
  schemas: {
    Role: {
      type: 'object',
      required: ['name', 'description', 'built_in'],
      properties: { name: str, description: str, built_in: { type: 'boolean' } },
      additionalProperties: false,
    },
    NewRole: bodySchemaOf(NEW_ROLE.fields, NEW_ROLE.required),
    RolePage: {
      type: 'object',
      required: ['roles', 'next'],
      properties: { roles: { type: 'array', items: ref('Role') }, next: { type: ['string', 'null'] } },
      additionalProperties: false,
    },
    PersonRoles: {
      type: 'object',
      required: ['roles'],
      properties: { roles: { type: 'array', items: str } },
      additionalProperties: false,
    },
  },
};
