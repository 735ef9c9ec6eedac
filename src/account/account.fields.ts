// The account pages' queries and forms, declared once: account.controller.ts reads through these
// fields and account.openapi.ts states them (common/request-fields.ts). The sign-up and profile forms'
// lengths are their services' rules (POST /users's, the claims'), answered with the form again and the
// rule's message; the other forms are refused outright (400) past a length.
import { checkedByService, oneOfField, onPage, pageNumberField, stringField, type RequestField } from '../common/request-fields';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../common/validation';
import { ADDRESS_FIELDS, CLAIM_FIELDS, MAX_CLAIM_LENGTH, MAX_NAME_LENGTH } from '../users/sign-up.service';
import { CSRF_FIELDS } from '../web/csrf';
import { LINK_TOKEN } from './account-links.service';
import { ACCOUNT_NOTICES } from './account.page';

const text = (description: string, maxLength: number) => onPage(stringField(description, { maxLength }));
const email = text('The email address', MAX_EMAIL_LENGTH);
const password = text('The password', MAX_PASSWORD_LENGTH);
const name = (which: string) => text(`The ${which} name`, MAX_NAME_LENGTH);

/** A mailed link (verify the email, reset the password). */
export const LINK_QUERY = { token: LINK_TOKEN };

export const ACCOUNT_QUERY = {
  done: onPage(oneOfField(Object.keys(ACCOUNT_NOTICES) as (keyof typeof ACCOUNT_NOTICES)[], 'Which notice to show after a form')),
  sessions_page: pageNumberField('Which page of the signed-in browsers'),
  activity_page: pageNumberField('Which page of the recent activity'),
};

/** Each field held to the service's rule (the form again with its message). */
const byService = <F extends Record<string, RequestField<string | undefined>>>(fields: F) =>
  Object.fromEntries(Object.entries(fields).map(([key, field]) => [key, checkedByService(field)])) as F;

export const SIGN_UP_FORM = { ...CSRF_FIELDS, ...byService({ email, password, firstName: name('first'), lastName: name('last') }) };

export const FORGOT_FORM = { ...CSRF_FIELDS, email };

export const RESET_FORM = {
  ...CSRF_FIELDS,
  token: LINK_TOKEN,
  password,
  remove_recent_factors: onPage(oneOfField(['1'] as const, '1: also remove the second factors added lately')),
};

export const PROFILE_FORM = {
  ...CSRF_FIELDS,
  ...byService({
    firstName: name('first'),
    lastName: name('last'),
    picture: text('The picture, an https URL', MAX_CLAIM_LENGTH),
    ...Object.fromEntries(CLAIM_FIELDS.map((claim) => [claim, text(`The ${claim} claim`, MAX_CLAIM_LENGTH)])),
    ...Object.fromEntries(ADDRESS_FIELDS.map((part) => [`address.${part}`, text(`The address's ${part}`, MAX_CLAIM_LENGTH)])),
  }),
};

export const PASSWORD_FORM = { ...CSRF_FIELDS, currentPassword: password, password };
