// The users resource of seed 000.
import * as usersService from './users.service';
import {
  bodyOf,
  empty,
  int,
  json,
  jsonFaults,
  jsonRequest,
  malformedPath,
  type OpenApiFragment,
  pathParam,
  queryOf,
  ref,
  type Responses,
  str,
} from '../openapi/openapi.kit';
import { CLAIMS_SCHEMA } from './users.claims';
import * as usersValidation from './users.validation';

/** USERS_API_AUTH=jwt: the access token from POST /auth; the open mode (the default) needs none. */
const usersSecurity = [{}, { jwt: [] }];
const usersAuthErrors: Responses = {
  '401': empty('USERS_API_AUTH=jwt: Authorization header absent or not Bearer'),
  '403': empty("USERS_API_AUTH=jwt: bad access token, or another user's record without the admin role"),
};

const userWriteResponses = (done: string): Responses => ({
  '204': empty(done),
  '400': json(
    { oneOf: [ref('Errors'), ref('Error')] },
    "Validation failed, Invalid email, or (USERS_API_AUTH=jwt) User cannot change permission flags, or Invalid current password (changing one's own password needs currentPassword)",
  ),
  '404': json(ref('Error'), 'User <userId> not found (checked before the body)'),
  '429': json(ref('Errors'), 'The password-hashing queue is full for this address; see Retry-After'),
  ...usersAuthErrors,
  ...jsonFaults,
});

export const usersOpenApi: OpenApiFragment = {
  paths: {
    '/users': {
      get: {
        tags: ['Users'],
        operationId: 'listUsers',
        summary: 'The first 100 users in creation order, or a page of them (USERS_API_AUTH=jwt: admins only)',
        security: usersSecurity,
        parameters: queryOf(usersValidation.listUsers),
        responses: {
          '200': json({ type: 'array', items: ref('User'), maxItems: usersService.MAX_PAGE_SIZE }, 'Users'),
          '400': json(ref('Errors'), 'Invalid limit or page'),
          ...usersAuthErrors,
          ...jsonFaults,
        },
      },
      post: {
        tags: ['Users'],
        operationId: 'createUser',
        security: [],
        summary: 'Create a user (permissionFlags is always 1)',
        requestBody: jsonRequest(ref('UserCreate')),
        responses: {
          '201': json({ type: 'object', required: ['id'], properties: { id: str }, additionalProperties: false }, 'Created'),
          '400': json({ oneOf: [ref('Errors'), ref('Error')] }, 'Validation failed, or User email already exists'),
          '429': json(ref('Errors'), 'Too many accounts created from this address, or the password-hashing queue is full; see Retry-After'),
          ...jsonFaults,
        },
      },
    },
    '/users/{userId}': {
      parameters: [pathParam('userId', 'The user id')],
      get: {
        tags: ['Users'],
        operationId: 'getUser',
        summary: 'Read a user',
        security: usersSecurity,
        responses: {
          '200': json(ref('User'), 'The user'),
          '400': malformedPath,
          '404': json(ref('Error'), 'User <userId> not found'),
          ...usersAuthErrors,
          ...jsonFaults,
        },
      },
      put: {
        tags: ['Users'],
        operationId: 'replaceUser',
        summary: 'Replace a user (the email must stay the same); a new password ends their tokens and sessions',
        security: usersSecurity,
        requestBody: jsonRequest(ref('UserPut')),
        responses: userWriteResponses('Replaced'),
      },
      patch: {
        tags: ['Users'],
        operationId: 'updateUser',
        summary: 'Update some fields of a user; a new password ends their tokens and sessions',
        security: usersSecurity,
        requestBody: jsonRequest(ref('UserPatch')),
        responses: userWriteResponses('Updated'),
      },
      delete: {
        tags: ['Users'],
        operationId: 'deleteUser',
        summary: 'Delete a user and end every token, grant and session issued to them',
        security: usersSecurity,
        responses: {
          '204': empty('Deleted'),
          '400': malformedPath,
          '404': json(ref('Error'), 'User <userId> not found'),
          ...usersAuthErrors,
          ...jsonFaults,
        },
      },
    },
  },
  schemas: {
    User: {
      type: 'object',
      required: ['_id', 'permissionFlags', '__v'],
      properties: { _id: str, email: str, firstName: str, lastName: str, claims: CLAIMS_SCHEMA, permissionFlags: int, __v: int },
      additionalProperties: false,
    },
    UserCreate: bodyOf(usersValidation.createUser),
    UserPut: bodyOf(usersValidation.putUser),
    UserPatch: bodyOf(usersValidation.patchUser),
  },
  examples: {
    User: { _id: '2W9Cs9EeO', email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee', permissionFlags: 1, __v: 0 },
    UserCreate: { email: 'ann@example.com', password: 'correct horse battery', firstName: 'Ann', lastName: 'Lee' },
    UserPatch: { firstName: 'Annie' },
  },
};
