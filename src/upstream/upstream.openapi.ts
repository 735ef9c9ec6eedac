// Sign-in through another provider (docs/upstream.md): GitHub, and the OpenID providers.
import { formRequest, type OpenApiFragment, page, pageFaults, pathParam, redirect, ref, sessionAuth, str } from '../openapi/openapi.kit';
import { bodySchemaOf, queryParametersOf } from '../common/request-fields';
import { CSRF_FIELDS } from '../web/csrf';
import { CALLBACK_QUERY, CANCEL_LINK_FORM, LINK_FORM, PROVIDER_QUERY, START_QUERY } from './upstream.fields';

const tags = ['Browser sign-in'];
const provider = pathParam('id', 'An upstream provider id from UPSTREAM_PROVIDERS');
const csrfRefusals = { '403': page('Missing or wrong CSRF token'), '413': page('Body over 100 kB') };
const providerForm = (operationId: string, summary: string, done: string, extra: Record<string, unknown> = {}) => ({
  parameters: [provider],
  post: {
    tags,
    operationId,
    summary,
    security: sessionAuth,
    requestBody: formRequest(bodySchemaOf(CSRF_FIELDS)),
    responses: {
      '303': redirect(`${done}; to /login when not signed in`),
      '404': page('Unknown provider'),
      ...extra,
      ...csrfRefusals,
      ...pageFaults,
    },
  },
});

export const upstreamOpenApi: OpenApiFragment = {
  paths: {
    '/auth/{provider}': {
      parameters: [pathParam('provider', 'An identity provider with a route of its own: github')],
      get: {
        tags: ['Browser sign-in'],
        operationId: 'providerSignIn',
        security: [],
        summary: 'Sign in through GitHub (redirect to it, or handle its callback)',
        parameters: queryParametersOf(PROVIDER_QUERY),
        responses: {
          '302': redirect(
            'To the provider; once signed in (30-day cookie), to return_to or /home, or to /login/verify for a second factor',
          ),
          '400': {
            description: 'invalid_state: the callback was replayed or did not start here (page), or a malformed path (JSON)',
            content: { 'text/html': { schema: str }, 'application/json': { schema: ref('Error') } },
          },
          '403': page('The user denied access at the provider, or the account is disabled'),
          '404': page('Unknown provider'),
          '502': page('The provider refused the sign-in or answered unreadably'),
          '503': {
            description: 'The provider is not configured (page), or the database is unavailable (JSON)',
            content: { 'text/html': { schema: str }, 'application/json': { schema: ref('Error') } },
          },
          '504': page('The provider did not answer in time'),
        },
      },
    },
    '/auth/upstream/{id}': {
      parameters: [provider],
      get: {
        tags,
        operationId: 'upstreamSignIn',
        security: [],
        summary: 'Sign in through an upstream OpenID provider: to its authorization endpoint (code, PKCE, state, nonce)',
        parameters: queryParametersOf(START_QUERY),
        responses: {
          '302': redirect('To the provider, with the checks kept in a signed cookie for the callback'),
          '404': page('Unknown provider'),
          '504': page('The provider did not answer (discovery)'),
          '502': page('The provider answered unreadably'),
          ...pageFaults,
        },
      },
    },
    '/auth/upstream/{id}/callback': {
      parameters: [provider],
      get: {
        tags,
        operationId: 'upstreamCallback',
        security: [],
        summary:
          "The provider's redirect URI: the code exchanged, the ID token checked, the person signed in, linked or asked to prove an account",
        parameters: queryParametersOf(CALLBACK_QUERY),
        responses: {
          '302': redirect(
            'Signed in (30-day cookie): to return_to; to /login/verify for a second factor; to /login/link to prove an account with the same email; to /account after a link',
          ),
          '400': page('invalid_state: the callback was replayed, expired or did not start in this browser'),
          '403': page('Refused at the provider, the email is not one the provider vouches for, or the account is disabled'),
          '404': page('Unknown provider'),
          '409': page('The provider account is linked to someone else, or another sign-in is creating the account'),
          '502': page('The provider refused the code, or its ID token failed a check (issuer, audience, signature, nonce, expiry)'),
          '504': page('The provider did not answer in time'),
          ...pageFaults,
        },
      },
    },
    '/login/link': {
      get: {
        tags,
        operationId: 'upstreamLinkPage',
        security: [],
        summary: 'Asks for the password of the account with the provider email before linking the provider to it',
        responses: {
          '200': page('The password form, or how to link from the account page'),
          '302': redirect('Nothing to link: to /login'),
          ...pageFaults,
        },
      },
      post: {
        tags,
        operationId: 'upstreamLink',
        security: [],
        summary: 'Proves the account with its password; links the provider and signs in',
        requestBody: formRequest(bodySchemaOf(LINK_FORM)),
        responses: {
          '302': redirect('Signed in: to where the sign-in was asked from'),
          '303': redirect(
            'Signed in: to where the sign-in was asked from; to /login/verify for a second factor; nothing to link: to /login',
          ),
          '401': page('The page again: wrong password'),
          '409': page('The provider account was linked to someone else meanwhile'),
          '400': page('A password over its length'),
          '429': page('Too many attempts; see Retry-After'),
          ...csrfRefusals,
          ...pageFaults,
        },
      },
    },
    '/login/link/cancel': {
      post: {
        tags,
        operationId: 'upstreamLinkCancel',
        security: [],
        summary: 'Cancel on the link page: the pending link ends at once, nothing is linked',
        requestBody: formRequest(bodySchemaOf(CANCEL_LINK_FORM)),
        responses: {
          '303': redirect('To /login'),
          ...csrfRefusals,
          ...pageFaults,
        },
      },
    },
    '/account/providers/{id}/link': providerForm(
      'upstreamLinkFromAccount',
      'Links an upstream provider to the signed-in account: to the provider',
      'To the provider',
      {
        '502': page('The provider answered unreadably'),
        '504': page('The provider did not answer'),
      },
    ),
    '/account/providers/{id}/unlink': providerForm(
      'upstreamUnlink',
      'Unlinks an upstream provider, unless it is the last way in',
      'Unlinked: to /account',
      {
        '409': page('The last way to sign in: not unlinked'),
      },
    ),
  },
};
