// Second factors and passkeys (docs/security.md, Second factors).
import {
  formRequest,
  json,
  jsonRequest,
  type OpenApiFragment,
  page,
  pageFaults,
  pathParam,
  redirect,
  ref,
  sessionAuth,
  str,
} from '../openapi/openapi.kit';

import { ASSET_SCRIPTS } from './factors.rules';
import { bodySchemaOf, queryParametersOf } from '../common/request-fields';
import { CSRF_FIELDS } from '../web/csrf';
import { CODE_FORM, NEW_PASSKEY, OPTIONS_REQUEST, PASSKEY_ANSWER, PASSKEY_SIGN_IN, RENAME_FORM, STEP_UP_QUERY } from './factors.fields';

const tags = ['Second factors'];
const form = (fields: Parameters<typeof bodySchemaOf>[0]) => formRequest(bodySchemaOf(fields));
const ceremony = (fields: Parameters<typeof bodySchemaOf>[0]) => jsonRequest(bodySchemaOf(fields));
const refusals = { '403': page('Missing or wrong CSRF token'), '413': page('Body over 100 kB') };
const jsonRefusals = {
  '400': json(
    { oneOf: [ref('Error'), ref('Errors')] },
    'The passkey was refused (wrong origin or RP id, a replayed or unknown challenge, a counter that went back), no sign-in is waiting, or the body is not JSON',
  ),
  '401': json(ref('Error'), "Not signed in (the account page's passkeys)"),
  '403': page('Missing or wrong CSRF token'),
  '413': json(ref('Errors'), 'Body over 100 kB'),
};
const options = json(
  { type: 'object' },
  'WebAuthn options (PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON)',
);
/** Adding a passkey needs a recent sign-in (with the second factor when the account has one): where to confirm first. */
const confirmFirst = {
  '403': {
    description: 'Missing or wrong CSRF token (page), or the session must be confirmed first: `redirect` is where (JSON)',
    content: {
      'text/html': { schema: str },
      'application/json': { schema: { type: 'object', properties: { error: str, redirect: str }, required: ['error', 'redirect'] } },
    },
  },
};
const next = json({ type: 'object', properties: { redirect: str }, required: ['redirect'] }, 'Accepted: where the browser goes next');

function post(operationId: string, summary: string, body: unknown, responses: Record<string, unknown>, security: unknown[] = sessionAuth) {
  return { post: { tags, operationId, summary, security, requestBody: body, responses: { ...responses, ...pageFaults } } };
}

export const factorsOpenApi: OpenApiFragment = {
  paths: {
    '/login/step-up': {
      get: {
        tags,
        operationId: 'stepUp',
        summary: 'A signed-in person gives their second factor again (acr_values=2, removing a factor), then returns',
        security: sessionAuth,
        parameters: queryParametersOf(STEP_UP_QUERY),
        responses: {
          '302': redirect('To /login/verify; to return_to for a person without a factor; to /login when not signed in'),
          ...pageFaults,
        },
      },
    },
    '/login/verify': {
      get: {
        tags,
        operationId: 'secondStepPage',
        security: [],
        summary: 'The second step of signing in: input `code`, button Verify, and a passkey button',
        responses: {
          '200': page('The second step'),
          '302': redirect('Nothing waiting: to /login, or to /account for a signed-in person'),
          ...pageFaults,
        },
      },
      ...post(
        'secondStep',
        'Give a one-time code from the authenticator app, or a recovery code',
        form(CODE_FORM),
        {
          '303': redirect(
            "Signed in (or confirmed): to where the sign-in was going, or the step-up's action done; to /login or /account when none is waiting",
          ),
          '400': page('A code over its length'),
          '401': page('The code is wrong or used (counted like a wrong password)'),
          '429': page('Too many wrong passwords or codes; see Retry-After'),
          ...refusals,
        },
        [],
      ),
    },
    '/login/verify/passkey/options': post(
      'secondStepPasskeyOptions',
      'Passkey options for the second step',
      ceremony(OPTIONS_REQUEST),
      { '200': options, ...jsonRefusals },
      [],
    ),
    '/login/verify/passkey': post(
      'secondStepPasskey',
      'A passkey as the second step',
      ceremony(PASSKEY_ANSWER),
      { '200': next, ...jsonRefusals },
      [],
    ),
    '/login/passkey/options': post(
      'passkeySignInOptions',
      'Options for signing in with a passkey alone (discoverable credentials)',
      ceremony(OPTIONS_REQUEST),
      { '200': options, '429': json(ref('Error'), 'Too many from this address'), ...jsonRefusals },
      [],
    ),
    '/login/passkey': post(
      'passkeySignIn',
      'Sign in with a passkey alone; `return_to` (a local path) is where the browser goes after (an authorization request)',
      ceremony(PASSKEY_SIGN_IN),
      { '200': next, ...jsonRefusals },
      [],
    ),
    '/account/totp': {
      get: {
        tags,
        operationId: 'totpEnrolPage',
        summary:
          'Set up an authenticator app: a QR code and the key (needs a recent sign-in, with the second factor when the account has one)',
        security: sessionAuth,
        responses: {
          '200': page('The QR code and the first-code form'),
          '302': redirect(
            'Already on: to /account; not signed in, or not recently: to /login; a second factor not recent: to /login/verify',
          ),
          ...pageFaults,
        },
      },
      ...post('confirmTotp', 'Turn the app on with its first code', form(CODE_FORM), {
        '200': page('On: the recovery codes, shown once'),
        '303': redirect('On (recovery codes exist already): to /account; the session must be confirmed first: to /login or /login/verify'),
        '400': page('The code is wrong: the QR code again; or a code over its length'),
        ...refusals,
      }),
    },
    '/account/totp/remove': post('removeTotp', 'Turn the authenticator app off (needs a recent second factor)', form(CSRF_FIELDS), {
      '303': redirect('Done: to /account (after a step-up through /login/verify when the last second factor is not recent)'),
      ...refusals,
    }),
    '/account/recovery-codes': post(
      'regenerateRecoveryCodes',
      'Make new recovery codes (the old ones end; needs a recent second factor)',
      form(CSRF_FIELDS),
      {
        '303': redirect('To /account/recovery-codes/new; or to /login/verify for a fresh second factor first'),
        '400': page('The account has no second factor'),
        ...refusals,
      },
    ),
    '/account/recovery-codes/new': {
      get: {
        tags,
        operationId: 'newRecoveryCodes',
        summary: 'The recovery codes just made (POST /account/recovery-codes, after a step-up when one was asked), shown once',
        security: sessionAuth,
        responses: { '200': page('The codes'), '302': redirect('None waiting to be shown: to /account'), ...pageFaults },
      },
    },
    '/account/recovery-codes/first': {
      get: {
        tags,
        operationId: 'firstRecoveryCodes',
        summary: 'After the first passkey: the recovery codes, made and shown once',
        security: sessionAuth,
        responses: { '200': page('The codes'), '302': redirect('Codes exist already, or no factor: to /account'), ...pageFaults },
      },
    },
    '/account/passkeys/options': post('passkeyRegistrationOptions', 'Options for registering a passkey', ceremony(OPTIONS_REQUEST), {
      '200': options,
      ...jsonRefusals,
      ...confirmFirst,
    }),
    '/account/passkeys': post('registerPasskey', 'Register a passkey under a name', ceremony(NEW_PASSKEY), {
      '200': next,
      ...jsonRefusals,
      ...confirmFirst,
    }),
    '/account/passkeys/{id}/rename': {
      post: {
        ...post('renamePasskey', 'Rename a passkey', form(RENAME_FORM), {
          '303': redirect('To /account'),
          '400': page('A name over its length'),
          ...refusals,
        }).post,
        parameters: [pathParam('id', 'The passkey (its credential id)')],
      },
    },
    '/account/passkeys/{id}/remove': {
      post: {
        ...post('removePasskey', 'Remove a passkey (needs a recent second factor)', form(CSRF_FIELDS), {
          '303': redirect('Done: to /account (after a step-up through /login/verify when the last second factor is not recent)'),
          ...refusals,
        }).post,
        parameters: [pathParam('id', 'The passkey (its credential id)')],
      },
    },
    '/assets/{script}': {
      get: {
        tags,
        operationId: 'passkeyScripts',
        security: [],
        summary: 'The passkey scripts: webauthn-browser.js (@simplewebauthn/browser) and passkeys.js',
        parameters: [{ ...pathParam('script', 'Which script'), schema: { type: 'string', enum: [...ASSET_SCRIPTS] } }],
        responses: {
          '200': { description: 'The script', content: { 'text/javascript': { schema: { type: 'string' } } } },
          '404': json(ref('Error'), 'No such script'),
          ...pageFaults,
        },
      },
    },
  },
};
