// The self-service pages (docs/accounts.md), and the development outbox.
import { formRequest, json, type OpenApiFragment, page, ref, pageFaults, pathParam, redirect, sessionAuth } from '../openapi/openapi.kit';
import { bodySchemaOf, queryParametersOf } from '../common/request-fields';
import { CSRF_FIELDS } from '../web/csrf';
import { ACCOUNT_QUERY, FORGOT_FORM, LINK_QUERY, PASSWORD_FORM, PROFILE_FORM, RESET_FORM, SIGN_UP_FORM } from './account.fields';
import { FACTOR_RULES } from '../factors/factors.service';

const tags = ['Account pages'];
const form = (fields: Parameters<typeof bodySchemaOf>[0]) => formRequest(bodySchemaOf(fields));
const refusals = {
  '403': page('Missing or wrong CSRF token'),
  '413': page('Body over 100 kB'),
};

/** The account page's forms: signed in, with the CSRF token; a stale session is sent to sign in. */
function accountForm(
  operationId: string,
  summary: string,
  fields: Parameters<typeof form>[0],
  done: string,
  extra: Record<string, unknown> = {},
) {
  return {
    post: {
      tags,
      operationId,
      summary,
      security: sessionAuth,
      requestBody: form(fields),
      responses: { '303': redirect(`${done}; to /login when not signed in`), ...extra, ...refusals, ...pageFaults },
    },
  };
}

export const accountOpenApi: OpenApiFragment = {
  paths: {
    '/signup': {
      get: {
        tags,
        operationId: 'signUpPage',
        security: [],
        summary: 'Sign-up page',
        responses: {
          '200': page('Email, password, first and last name'),
          '302': redirect('Already signed in: to /account'),
          ...pageFaults,
        },
      },
      post: {
        tags,
        operationId: 'signUpForm',
        security: [],
        summary: 'Create an account (the rules and messages of POST /users), sign in, and mail a verification link',
        requestBody: form(SIGN_UP_FORM),
        responses: {
          '303': redirect('Signed up and signed in: to /account'),
          '400': page('The form again, with what to correct'),
          '429': page('Too many sign-ups from this address; see Retry-After'),
          ...refusals,
          ...pageFaults,
        },
      },
    },
    '/verify-email': {
      get: {
        tags,
        operationId: 'verifyEmail',
        security: [],
        summary: 'The mailed verification link: marks the email verified',
        parameters: queryParametersOf(LINK_QUERY),
        responses: {
          '200': page('Email verified'),
          '400': page('The link is used, replaced, expired or not valid; nothing changed'),
          ...pageFaults,
        },
      },
    },
    '/forgot-password': {
      get: {
        tags,
        operationId: 'forgotPasswordPage',
        security: [],
        summary: 'Forgotten password page',
        responses: { '200': page('Email form'), ...pageFaults },
      },
      post: {
        tags,
        operationId: 'forgotPassword',
        security: [],
        summary: 'Mail a reset link if an account has this email (the same answer either way)',
        requestBody: form(FORGOT_FORM),
        responses: {
          '200': page('A link is on its way if an account has this address'),
          '400': page('Not an email address this server accepts'),
          '429': page('Too many requests from this address or for this email; see Retry-After'),
          ...refusals,
          ...pageFaults,
        },
      },
    },
    '/reset-password': {
      get: {
        tags,
        operationId: 'resetPasswordPage',
        security: [],
        summary: 'The mailed reset link: the new password form',
        parameters: queryParametersOf(LINK_QUERY),
        responses: { '200': page('New password form'), '400': page('The link is used, replaced, expired or not valid'), ...pageFaults },
      },
      post: {
        tags,
        operationId: 'resetPassword',
        security: [],
        summary: `Set the new password: every session and token of the account ends, and this browser is signed in (after the second factor when the account has one); \`remove_recent_factors=1\` also removes the second factors added in the last ${FACTOR_RULES.recentFactorDays} days, and then nobody is signed in (a mailbox is not a second factor)`,
        requestBody: form(RESET_FORM),
        responses: {
          '200': page('Password set and recent second factors removed: nobody is signed in; the page says to sign in anew'),
          '303': redirect('Password set: to /account, or to /login/verify when the account still has a second factor'),
          '400': page('The password breaks the rule (the form again), or the link cannot be used'),
          ...refusals,
          ...pageFaults,
        },
      },
    },
    '/account': {
      get: {
        tags,
        operationId: 'accountPage',
        summary: 'The account page: email, profile, password, signed-in browsers, applications, recent activity',
        security: sessionAuth,
        parameters: queryParametersOf(ACCOUNT_QUERY),
        responses: {
          '200': page('The account page'),
          '302': redirect('To /login when not signed in'),
          '400': page('A notice or a page number not among those stated'),
          ...pageFaults,
        },
      },
    },
    '/account/verify-email': accountForm('resendVerification', 'Mail the verification link again', CSRF_FIELDS, 'Sent: to /account', {
      '429': page('Asked too often; see Retry-After'),
    }),
    '/account/profile': accountForm(
      'saveProfile',
      'Save the profile: names, picture and the OpenID Connect claims (an empty field shares nothing)',
      PROFILE_FORM,
      'Saved: to /account',
      { '400': page('The account page, with what to correct') },
    ),
    '/account/password': accountForm(
      'changePassword',
      'Change the password (the current one first): every other session and token ends',
      PASSWORD_FORM,
      'Changed: to /account',
      { '400': page('The account page, with what to correct'), '429': page('Too many wrong passwords; see Retry-After') },
    ),
    '/account/sessions/sign-out-others': accountForm(
      'signOutOtherSessions',
      'Sign out every other browser',
      CSRF_FIELDS,
      'Done: to /account',
    ),
    '/account/sessions/{handle}/sign-out': {
      post: {
        ...accountForm('signOutSession', 'Sign out one of the other browsers', CSRF_FIELDS, 'Done: to /account').post,
        parameters: [pathParam('handle', 'The session as the account page names it')],
      },
    },
    '/dev/mail': {
      get: {
        tags: ['Operations'],
        operationId: 'developmentOutbox',
        security: [],
        summary: 'Outside production without SMTP_URL: the mail the server would have sent (404 in production)',
        responses: { '200': page('The newest messages'), '404': json(ref('Error'), 'Not served in production'), ...pageFaults },
      },
    },
  },
};
