// The development callback's query, declared once for oauth.openapi.ts (common/request-fields.ts): the
// page shows every parameter that came, each cut at MAX_FIELD_LENGTH, and these are the ones an
// authorization response brings.
import { anyTextField } from '../../common/request-fields';

export const MAX_FIELD_LENGTH = 4096;

export const CALLBACK_QUERY = Object.fromEntries(
  ['code', 'state', 'iss', 'error', 'error_description'].map((name) => [
    name,
    anyTextField(`Shown as it came (cut at ${MAX_FIELD_LENGTH} characters), as any other parameter is`),
  ]),
);
