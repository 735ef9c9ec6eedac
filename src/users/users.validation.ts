// The field rules of /users, one schema per operation; the password messages are seed 000's own words.
// The same schemas are the operations' request bodies and parameters in users.openapi.ts.
import type { ParamSchema } from 'express-validator';
import {
  customRule,
  emailField,
  type FieldRules,
  inBody,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  pageRules,
  problemRule,
  type Presence,
} from '../common/validation';
import { CLAIMS_SCHEMA, claimsProblem, storedClaims } from './users.claims';
import { MAX_PAGE_SIZE } from './users.service';

export const MAX_NAME_LENGTH = 100;
export const MAX_PERMISSION_FLAGS = 2 ** 31 - 1;

const SEED_PASSWORD_MESSAGE = 'Must include password (5+ characters)';

function password(presence: Presence, message: string): ParamSchema {
  return {
    ...inBody(presence, message),
    isString: { errorMessage: message, bail: true },
    isLength: { options: { min: MIN_PASSWORD_LENGTH }, errorMessage: message, bail: true },
    custom: customRule(
      (value: string) => value.length <= MAX_PASSWORD_LENGTH,
      `Password must be at most ${MAX_PASSWORD_LENGTH} characters`,
      { maxLength: MAX_PASSWORD_LENGTH },
    ),
  };
}

function name(field: 'firstName' | 'lastName', presence: Presence): ParamSchema {
  return {
    ...inBody(presence, `Must include ${field}`),
    isString: { errorMessage: `${field} must be a string`, bail: true },
    isLength: { options: { max: MAX_NAME_LENGTH }, errorMessage: `${field} must be at most ${MAX_NAME_LENGTH} characters` },
  };
}

function permissionFlags(presence: Presence): ParamSchema {
  // A JSON integer only: "1", 1.5 and true are all refused.
  return {
    ...inBody(presence, 'Must include permissionFlags'),
    custom: customRule(
      (value) => Number.isInteger(value) && value >= 0 && value <= MAX_PERMISSION_FLAGS,
      `permissionFlags must be an integer from 0 to ${MAX_PERMISSION_FLAGS}`,
      { type: 'integer', minimum: 0, maximum: MAX_PERMISSION_FLAGS },
    ),
  };
}

/** The OpenID Connect claims the person shares (users.claims.ts): optional everywhere, replaced as a whole. */
const claims: ParamSchema = {
  ...inBody('optional', ''),
  custom: problemRule(claimsProblem, CLAIMS_SCHEMA),
  customSanitizer: {
    options: (value: unknown) => (claimsProblem(value) === null ? storedClaims(value as Record<string, unknown>) : value),
  },
};

export const createUser: FieldRules = {
  email: emailField('required'),
  password: password('required', SEED_PASSWORD_MESSAGE),
  firstName: name('firstName', 'optional'),
  lastName: name('lastName', 'optional'),
  claims,
};

/** USERS_API_AUTH=jwt: what someone changing their own password sends besides the new one. */
const currentPassword: ParamSchema = {
  ...inBody('optional', ''),
  isString: { errorMessage: 'currentPassword must be a string', bail: true },
  isLength: { options: { max: MAX_PASSWORD_LENGTH }, errorMessage: `currentPassword must be at most ${MAX_PASSWORD_LENGTH} characters` },
};

export const putUser: FieldRules = {
  email: emailField('required'),
  password: password('required', SEED_PASSWORD_MESSAGE),
  firstName: name('firstName', 'required'),
  lastName: name('lastName', 'required'),
  permissionFlags: permissionFlags('required'),
  claims,
  currentPassword,
};

export const patchUser: FieldRules = {
  email: emailField('optional'),
  password: password('optional', 'Password must be 5+ characters'),
  firstName: name('firstName', 'optional'),
  lastName: name('lastName', 'optional'),
  permissionFlags: permissionFlags('optional'),
  claims,
  currentPassword,
};

export const listUsers: FieldRules = pageRules(MAX_PAGE_SIZE);
