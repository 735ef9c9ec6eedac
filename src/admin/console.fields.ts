// The console's application form, declared once: console.controller.ts reads through these fields
// and admin.openapi.ts states them (common/request-fields.ts). What each field takes is the
// registration's rule (registration.service.ts, RFC 7591), answered with the form again and its words.
import { anyTextField, checkboxesField, checkedByService, oneOfField, stringField } from '../common/request-fields';
import { CLIENT_AUTH_METHODS, GRANT_TYPES, LIMITS } from '../oauth/protocol';
import { CSRF_FIELDS } from '../web/csrf';
import { ROLE_RULES } from '../oauth/roles/roles.service';
import { HOST_RULES } from '../oauth/clients/client-documents.service';
import { EXCHANGE_SUBJECTS, EXCHANGE_TOKEN_TYPES } from '../oauth/exchange/exchange.service';

const uri = (what: string) => anyTextField(`${what}: an absolute URI (empty: none)`);
const uris = (what: string) => anyTextField(`${what}: one per line, at most ${LIMITS.urisPerClient}`);

/** What both the new application's form and an application's page send. */
const CHANGEABLE = {
  ...CSRF_FIELDS,
  client_name: checkedByService(stringField('The name people see', { maxLength: LIMITS.clientNameLength })),
  client_uri: uri("The application's website"),
  redirect_uris: uris('Redirect URIs'),
  grant_types: checkboxesField(GRANT_TYPES, 'The grants checked'),
};

export const CHANGE_APPLICATION_FORM = CHANGEABLE;

/** The person page's Give form: a role to give (a defined one, or admin). */
export const GIVE_ROLE_FORM = {
  ...CSRF_FIELDS,
  role: stringField('The role to give', {
    minLength: 1,
    maxLength: ROLE_RULES.maxName,
    pattern: ROLE_RULES.name,
    rule: ROLE_RULES.nameText,
  }),
};

export const NEW_APPLICATION_FORM = {
  ...CHANGEABLE,
  post_logout_redirect_uris: uris('Where RP-initiated logout may return'),
  token_endpoint_auth_method: checkedByService(oneOfField(CLIENT_AUTH_METHODS, 'How the application authenticates (empty: the default)')),
  jwks_uri: uri('Where its public keys are'),
  jwks: anyTextField('Its public keys, a JWK Set as JSON (empty: none)'),
  backchannel_logout_uri: uri('Where back-channel logout tokens go'),
  initiate_login_uri: uri('Where a sign-in started here goes (OIDC Core §4)'),
  logo_uri: uri('Its logo'),
  policy_uri: uri('Its privacy policy'),
  tos_uri: uri('Its terms of service'),
};

/** The agents page's forms: each field as typed; the exchange rules' and hosts' own rules check them (agents.fields.ts, exchange.service.ts). */
export const DOCUMENT_HOST_FORM = {
  ...CSRF_FIELDS,
  host: anyTextField('A host, with its port when not 443'),
  rule: checkedByService(oneOfField(HOST_RULES, 'allow or block')),
};
export const FORGET_HOST_FORM = { ...CSRF_FIELDS, host: anyTextField('The host whose rule goes') };
export const EXCHANGE_POLICY_FORM = {
  ...CSRF_FIELDS,
  client_id: anyTextField('The client that exchanges'),
  audience: anyTextField('A resource here, or another authorization server (id-jag)'),
  token_type: checkedByService(oneOfField(EXCHANGE_TOKEN_TYPES, 'access_token or id-jag')),
  scopes: anyTextField('The most the new token may carry, space-separated'),
  subjects: checkedByService(oneOfField(EXCHANGE_SUBJECTS, 'own or any')),
  target_client_id: anyTextField("id-jag: the client's id at that authorization server"),
};
export const DELETE_POLICY_FORM = {
  ...CSRF_FIELDS,
  client_id: anyTextField('The client of the rule'),
  audience: anyTextField('The audience of the rule'),
};
