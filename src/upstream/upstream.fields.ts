// The upstream sign-in's queries and forms, declared once: upstream.controller.ts reads through these
// fields and upstream.openapi.ts states them (common/request-fields.ts). The callback's parameters
// are the provider's: openid-client checks them (state against this browser's, iss against the
// provider's, RFC 9207), so they take any text here.
import { anyTextField, onPage, stringField } from '../common/request-fields';
import { MAX_PASSWORD_LENGTH } from '../common/validation';
import { CSRF_FIELDS } from '../web/csrf';
import { RETURN_TO } from '../web/return-to';

export const START_QUERY = { return_to: RETURN_TO };

/** GET /auth/:provider (GitHub, seed 001): the start link's return_to, or the provider's callback parameters. */
export const PROVIDER_QUERY = {
  return_to: { ...RETURN_TO, description: `${RETURN_TO.description} (the start link)` },
  code: anyTextField("The provider's authorization code (the callback)"),
  state: anyTextField('The state this browser left with (the callback); another is answered 400 invalid_state'),
  error: anyTextField("The provider's refusal (the callback): access_denied when the person said no"),
};

export const CALLBACK_QUERY = {
  code: anyTextField("The provider's authorization code"),
  state: anyTextField('The state this browser left with; another is answered 400 invalid_state'),
  iss: anyTextField("The provider's issuer (RFC 9207), when it sends it"),
  error: anyTextField("The provider's refusal: access_denied when the person said no"),
  error_description: anyTextField("The provider's words for its refusal"),
};

/** Cancel on the link page: the pending link ends at once. */
export const CANCEL_LINK_FORM = { ...CSRF_FIELDS };

export const LINK_FORM = {
  ...CSRF_FIELDS,
  email: anyTextField("The account's email, for password managers (the provider's is the one used)"),
  password: onPage(stringField("The account's password", { maxLength: MAX_PASSWORD_LENGTH })),
};
