// Building blocks of the OpenAPI document that every feature's fragment uses. Each feature describes
// its own routes in <feature>.openapi.ts; openapi/openapi.document.ts assembles them.

import { withRulesFrom, type FieldRules } from '../common/validation';
import { ADMIN_SCOPE } from '../oauth/protocol';

/** Swagger UI's page (under /docs) that receives the Authorize dialog's authorization response. */
export const DOCS_OAUTH2_REDIRECT_PATH = '/docs/assets/oauth2-redirect.html';
/** What /docs/assets serves of swagger-ui-dist: its script and stylesheet, and the Authorize dialog's landing page and its script. */
export const SWAGGER_UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'oauth2-redirect.html', 'oauth2-redirect.js'] as const;

export type Schema = Record<string, unknown>;
export type Responses = Record<string, unknown>;

/** A feature's part of the document: its paths, the schemas they refer to, and an example of some of them. */
export interface OpenApiFragment {
  paths: Record<string, unknown>;
  schemas?: Record<string, Schema>;
  /** By schema name; shown on the schema and on every request or response body that is exactly that schema. */
  examples?: Record<string, unknown>;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Schema, description: string) => ({ description, content: { 'application/json': { schema } } });
export const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
export const page = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
export const empty = (description: string) => ({ description });
export const redirect = (description: string) => ({
  description,
  headers: { Location: { schema: { type: 'string' }, description: 'Where the browser goes next' } },
});

export const str = { type: 'string' };
export const int = { type: 'integer' };

/** A document with an ETag: a client that sends it back in If-None-Match gets 304 while nothing changed. */
export const conditional = [
  {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'The ETag of a copy the client has',
    schema: { type: 'string', maxLength: 200 },
  },
];

export const notModified: Responses = { '304': empty('Not modified: the copy with the ETag sent in If-None-Match is current') };

/** Responses any JSON route may give besides its own. */
export const jsonFaults: Responses = {
  '413': json(ref('Errors'), 'Body over 100 kB'),
  '431': empty('Request line and headers over 16 kB (refused by Node before any route)'),
  '415': json(ref('Errors'), 'Unsupported body encoding or charset'),
  '500': json(ref('Error'), 'Unexpected failure'),
  '503': json(ref('Error'), 'Database unavailable; retry after Retry-After seconds'),
};
export const pageFaults: Responses = {
  '431': empty('Request line and headers over 16 kB (refused by Node before any route)'),
  '503': json(ref('Error'), 'Database unavailable'),
};
/** A path whose percent-encoding does not decode never reaches the route. */
export const malformedPath = json(ref('Error'), 'Malformed percent-encoding in the path');

export const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: str });
export const jsonRequest = (schema: Schema, example?: unknown) => ({
  required: true,
  content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
});
export const formRequest = (schema: Schema, example?: Record<string, string>) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema, ...(example !== undefined && { example }) } },
});

/** The access token from POST /auth. */
export const jwtAuth = [{ jwt: [] }];
/** The browser session from /login; without one the browser routes redirect to /login. */
export const sessionAuth = [{ session: [] }];

// An operation's field rules (express-validator schemas, common/validation.ts) as the document states them.
// Standard validators map to JSON Schema keywords; a custom rule brings its own fragment (`openapi`).

type FieldRule = FieldRules[string];
const optionsOf = (rule: unknown): Record<string, unknown> =>
  typeof rule === 'object' && rule !== null && 'options' in rule ? (rule.options as Record<string, unknown>) : {};

function schemaOfField(rule: FieldRule): Schema {
  const schema: Schema = {};
  if (rule.isString) schema.type = 'string';
  if (rule.isLength) {
    const { min, max } = optionsOf(rule.isLength);
    if (typeof min === 'number') schema.minLength = min;
    if (typeof max === 'number') schema.maxLength = max;
  }
  // Addresses are checked and stored in NFKC form with non-ASCII letters allowed (common/email.ts).
  if (rule.isEmail) schema.format = 'idn-email';
  for (const custom of [rule.custom, rule.customSanitizer]) {
    if (typeof custom === 'object' && custom !== null && 'openapi' in custom) Object.assign(schema, custom.openapi);
  }
  return schema;
}

const isRequired = (rule: FieldRule) => !rule.optional;
const locationOf = (rule: FieldRule) => (Array.isArray(rule.in) ? rule.in[0] : rule.in) as string | undefined;

/** The JSON body an operation's rules accept. */
export function bodyOf(rules: FieldRules): Schema {
  const fields = Object.entries(rules).filter(([, rule]) => locationOf(rule) === 'body');
  const required = fields.filter(([, rule]) => isRequired(rule)).map(([field]) => field);
  return withRulesFrom('express-validator (checkSchema)', {
    type: 'object',
    ...(required.length > 0 && { required }),
    properties: Object.fromEntries(fields.map(([field, rule]) => [field, schemaOfField(rule)])),
  });
}

/** The query parameters an operation's rules accept. */
export function queryOf(rules: FieldRules): Record<string, unknown>[] {
  return Object.entries(rules)
    .filter(([, rule]) => locationOf(rule) === 'query')
    .map(([name, rule]) =>
      withRulesFrom('express-validator (checkSchema)', { name, in: 'query', required: isRequired(rule), schema: schemaOfField(rule) }),
    );
}

/** The admin API (/admin/api): an access token with the admin scope, and what it answers without one. */
export const adminSecurity = [{ oauth: [ADMIN_SCOPE] }];
export const adminRefusals: Responses = {
  '401': json(
    { oneOf: [ref('OAuthError'), ref('BearerChallenge')] },
    'No access token (challenge only), or one that is not live (invalid_token)',
  ),
  '403': json(ref('OAuthError'), 'insufficient_scope: the token lacks the admin scope'),
  ...jsonFaults,
};
/** The admin API's JSON body refusals, in the OAuth shape. */
export const adminBodyRefusals: Responses = {
  '413': json(ref('OAuthError'), 'invalid_request: a body over 100 kB'),
  '415': json(ref('OAuthError'), 'invalid_request: a body that is not JSON in UTF-8'),
};
