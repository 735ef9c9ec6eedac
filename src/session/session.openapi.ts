// Browser sign-in pages.
import { formRequest, type OpenApiFragment, page, pageFaults, redirect, sessionAuth, str } from '../openapi/openapi.kit';

export const sessionOpenApi: OpenApiFragment = {
  paths: {
    '/login': {
      get: {
        tags: ['Browser sign-in'],
        operationId: 'signInPage',
        security: [],
        summary: 'Sign-in page',
        parameters: [{ name: 'return_to', in: 'query', required: false, schema: str }],
        responses: {
          '200': page('Email and password form with remember-me, and a link per sign-in provider (GitHub, upstream OpenID providers)'),
          '302': redirect('Already signed in'),
          ...pageFaults,
        },
      },
      post: {
        tags: ['Browser sign-in'],
        operationId: 'signIn',
        security: [],
        summary: 'Sign in',
        requestBody: formRequest({ type: 'object', properties: { _csrf: str, email: str, password: str, remember: str, return_to: str } }),
        responses: {
          '303': redirect('Signed in: to return_to (a local path) or /home'),
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
        requestBody: formRequest({ type: 'object', properties: { _csrf: str } }),
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
