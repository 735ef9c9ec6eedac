// POST /auth's field rules, and POST /auth/refresh-token's body; the same declarations are their
// request bodies in auth.openapi.ts.
import { Refusal } from '../common/refusals';
import type { RequestField } from '../common/request-fields';
import { emailField, type FieldRules, inBody, MAX_PASSWORD_LENGTH } from '../common/validation';

/** A refresh token is 32 random bytes; anything this long is not one. */
const MAX_REFRESH_TOKEN_LENGTH = 512;

export const login: FieldRules = {
  email: emailField('required'),
  password: {
    ...inBody('required', 'Must include password'),
    isString: { errorMessage: 'Password must be a string', bail: true },
    isLength: { options: { max: MAX_PASSWORD_LENGTH }, errorMessage: `Password must be at most ${MAX_PASSWORD_LENGTH} characters` },
  },
};

/** Seed 000's words: an absent, null or empty token is missing; any other non-token is invalid. */
export const refresh = {
  refreshToken: {
    description: 'The refresh token issued with the access token (single use)',
    schema: { type: 'string', minLength: 1, maxLength: MAX_REFRESH_TOKEN_LENGTH },
    read(value) {
      if (value === undefined || value === null || value === '') throw new Refusal('invalid', 'Missing required field: refreshToken');
      if (typeof value !== 'string' || value.length > MAX_REFRESH_TOKEN_LENGTH) throw new Refusal('invalid', 'Invalid refresh token');
      return value;
    },
  } satisfies RequestField<string>,
};
