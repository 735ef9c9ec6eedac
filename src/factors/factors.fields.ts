// The second step's and the factors' forms, and the JSON the passkey scripts post, declared once:
// factors.controller.ts reads through these fields and factors.openapi.ts states them
// (common/request-fields.ts).
import { objectField, onPage, stringField } from '../common/request-fields';
import { CSRF_FIELDS } from '../web/csrf';
import { RETURN_TO } from '../web/return-to';
import { FACTOR_RULES } from './factors.rules';

const code = onPage(stringField('A code from the authenticator app, or a recovery code', { maxLength: FACTOR_RULES.maxTypedCodeLength }));
const passkeyName = stringField('The name the account page shows for the passkey', { maxLength: FACTOR_RULES.maxPasskeyNameLength });
const response = objectField(
  "The authenticator's answer as @simplewebauthn/browser gives it (RegistrationResponseJSON or AuthenticationResponseJSON)",
);

export const STEP_UP_QUERY = { return_to: RETURN_TO };
export const CODE_FORM = { ...CSRF_FIELDS, code };
export const RENAME_FORM = { ...CSRF_FIELDS, name: passkeyName };

/** The passkey scripts' JSON (public/passkeys.js): the CSRF token, and what the ceremony returns. */
export const OPTIONS_REQUEST = CSRF_FIELDS;
export const PASSKEY_ANSWER = { ...CSRF_FIELDS, response };
export const PASSKEY_SIGN_IN = { ...PASSKEY_ANSWER, return_to: RETURN_TO };
export const NEW_PASSKEY = { ...PASSKEY_ANSWER, name: passkeyName };
