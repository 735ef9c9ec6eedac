// The development callback's query and exchange form, declared once (common/request-fields.ts): the
// page shows every parameter that came, each cut at MAX_FIELD_LENGTH, and these are the ones an
// authorization response brings; the form sends the token request's parameters.
import { anyTextField, onPage, stringField } from '../../common/request-fields';
import { CSRF_FIELDS } from '../../web/csrf';

export const MAX_FIELD_LENGTH = 4096;

export const CALLBACK_QUERY = Object.fromEntries(
  ['code', 'state', 'iss', 'error', 'error_description'].map((name) => [
    name,
    anyTextField(`Shown as it came (cut at ${MAX_FIELD_LENGTH} characters), as any other parameter is`),
  ]),
);

/** The exchange form: what the token request will carry, each at most MAX_FIELD_LENGTH characters. */
const exchanged = (name: string) => onPage(stringField(`The token request's ${name}`, { maxLength: MAX_FIELD_LENGTH }));
export const CALLBACK_EXCHANGE_FORM = {
  ...CSRF_FIELDS,
  code: exchanged('code'),
  redirect_uri: exchanged('redirect_uri'),
  client_id: exchanged('client_id'),
  client_secret: exchanged('client_secret'),
  code_verifier: exchanged('code_verifier'),
};
