// Browser sign-in pages.
import { formRequest, type OpenApiFragment, page, pageFaults, redirect, sessionAuth } from '../openapi/openapi.kit';
import { bodySchemaOf, queryParametersOf } from '../common/request-fields';
import { SIGN_IN_FORM, SIGN_IN_QUERY } from './session.fields';
import { CSRF_FIELDS } from '../web/csrf';

export const sessionOpenApi: OpenApiFragment = {
  paths: {
    '/login': {
      get: {
        tags: ['Browser sign-in'],
        operationId: 'signInPage',
        security: [],
        summary: 'Sign-in page',
        parameters: queryParametersOf(SIGN_IN_QUERY),
        responses: {
          '200': page('Email and password form with remember-me, and a link per sign-in provider (GitHub, upstream OpenID providers)'),
          '302': redirect('Already signed in'),
          '400': page('login_hint over its length, or a prompt other than login'),
          ...pageFaults,
        },
      },
      post: {
        tags: ['Browser sign-in'],
        operationId: 'signIn',
        security: [],
        summary: 'Sign in',
        requestBody: formRequest(bodySchemaOf(SIGN_IN_FORM)),
        responses: {
          '303': redirect('Signed in: to return_to (a local path) or /home'),
          '400': page('A field over its length, or a value not among those stated'),
          '401': page('Wrong email or password'),
          '403': page('Missing or wrong CSRF token'),
          '413': page('Body over 100 kB'),
          '429': page('Too many attempts; see Retry-After'),
          ...pageFaults,
        },
      },
    },
    '/logout': {
      post: {
        tags: ['Browser sign-in'],
        operationId: 'signOut',
        security: [],
        summary: 'Sign out',
        requestBody: formRequest(bodySchemaOf(CSRF_FIELDS)),
        responses: {
          '303': redirect('To /login'),
          '403': page('Missing or wrong CSRF token'),
          '413': page('Body over 100 kB'),
          ...pageFaults,
        },
      },
    },
    '/home': {
      get: {
        tags: ['Browser sign-in'],
        operationId: 'homePage',
        summary: 'Page for the signed-in user',
        security: sessionAuth,
        responses: {
          '200': page('Who is signed in, and a sign-out button'),
          '302': redirect('To /login when not signed in'),
          ...pageFaults,
        },
      },
    },
  },
};
