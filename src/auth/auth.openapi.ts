// Seed 000's token endpoints.
import * as authValidation from './auth.validation';
import { bodySchemaOf } from '../common/request-fields';
import { bodyOf, empty, json, jsonFaults, jsonRequest, jwtAuth, type OpenApiFragment, ref, str } from '../openapi/openapi.kit';

export const authOpenApi: OpenApiFragment = {
  paths: {
    '/auth': {
      post: {
        tags: ['Tokens'],
        operationId: 'login',
        security: [],
        summary: 'Log in with email and password',
        requestBody: jsonRequest(bodyOf(authValidation.login), { email: 'ann@example.com', password: 'correct horse battery' }),
        responses: {
          '201': json(ref('TokenPair'), 'An access token (HS256 JWT, 36000 s) and a single-use refresh token'),
          '400': json(ref('Errors'), 'Validation failed, or Invalid email and/or password'),
          '429': json(ref('Errors'), 'Too many attempts; see Retry-After'),
          ...jsonFaults,
          '500': empty('Internal failure while issuing tokens'),
        },
      },
    },
    '/auth/refresh-token': {
      post: {
        tags: ['Tokens'],
        operationId: 'refreshAccessToken',
        summary: 'A new token pair for a valid access token and its refresh token',
        security: jwtAuth,
        requestBody: jsonRequest(bodySchemaOf(authValidation.refresh, ['refreshToken'])),
        responses: {
          '201': json(ref('TokenPair'), 'A new pair'),
          '400': json(ref('Errors'), 'Missing required field: refreshToken, or Invalid refresh token'),
          '401': empty('Authorization header absent or not Bearer'),
          '403': empty('Access token invalid, expired or malformed'),
          '429': json(ref('Errors'), 'Too many requests; see Retry-After'),
          ...jsonFaults,
          '500': empty('Internal failure while issuing tokens'),
        },
      },
    },
  },
  schemas: {
    TokenPair: {
      type: 'object',
      required: ['accessToken', 'refreshToken'],
      properties: { accessToken: str, refreshToken: str },
      additionalProperties: false,
    },
  },
  examples: {
    TokenPair: {
      accessToken:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VySWQiOiIyVzlDczlFZU8iLCJlbWFpbCI6ImFubkBleGFtcGxlLmNvbSJ9.7hQd3pZp0vTQ9xkq1Yb2m0bq8v8oQk9wVx6b2y3F1gE',
      refreshToken: 'q3Xn0ZbK9yY8oV1pW2sT4uR6eA7dC5fGhJkLmNbVcXz',
    },
  },
};
