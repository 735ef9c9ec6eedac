// Sign-in through an identity provider.
import { type OpenApiFragment, page, pathParam, redirect, ref, str } from '../openapi/openapi.kit';
import { queryParametersOf } from '../common/request-fields';
import { PROVIDER_QUERY } from './social.fields';

export const socialOpenApi: OpenApiFragment = {
  paths: {
    '/auth/{provider}': {
      parameters: [pathParam('provider', 'An identity provider, such as github')],
      get: {
        tags: ['Browser sign-in'],
        operationId: 'providerSignIn',
        security: [],
        summary: 'Sign in through an identity provider (redirect to it, or handle its callback)',
        parameters: queryParametersOf(PROVIDER_QUERY),
        responses: {
          '302': redirect(
            'To the provider; once signed in (30-day cookie), to return_to or /home, or to /login/verify for a second factor',
          ),
          '400': {
            description: 'invalid_state: the callback was replayed or did not start here (page), or a malformed path (JSON)',
            content: { 'text/html': { schema: str }, 'application/json': { schema: ref('Error') } },
          },
          '403': page('The user denied access at the provider'),
          '404': page('Unknown provider'),
          '502': page('The provider failed or answered unreadably'),
          '503': {
            description: 'The provider is not configured (page), or the database is unavailable (JSON)',
            content: { 'text/html': { schema: str }, 'application/json': { schema: ref('Error') } },
          },
          '504': page('The provider did not answer in time'),
        },
      },
    },
  },
};
