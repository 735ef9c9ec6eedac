// The sign-in page's query and forms, declared once: the controller reads through these fields and
// session.openapi.ts states them (common/request-fields.ts).
import { oneOfField, onPage, stringField } from '../common/request-fields';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../common/validation';
import { CSRF_FIELDS } from '../web/csrf';
import { RETURN_TO } from '../web/return-to';

export const SIGN_IN_QUERY = {
  return_to: RETURN_TO,
  prompt: onPage(oneOfField(['login'] as const, 'login: sign in again though a session is there (from the authorization endpoint)')),
  login_hint: onPage(stringField('The email to fill in', { maxLength: MAX_EMAIL_LENGTH })),
};

export const SIGN_IN_FORM = {
  ...CSRF_FIELDS,
  email: onPage(stringField('The email address', { maxLength: MAX_EMAIL_LENGTH })),
  password: onPage(stringField('The password', { maxLength: MAX_PASSWORD_LENGTH })),
  remember: onPage(oneOfField(['1', 'on'] as const, 'Keep the session for 30 days')),
  return_to: RETURN_TO,
};
