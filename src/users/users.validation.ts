// express-validator chains for /users; the password messages are seed 000's own words.
import { body, query, type ValidationChain } from 'express-validator';
import { email, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, present, type Presence } from '../common/validation';

export const MAX_NAME_LENGTH = 100;
export const MAX_PERMISSION_FLAGS = 2 ** 31 - 1;
export const MAX_PAGE = 1_000_000;

function password(presence: Presence, message: string): ValidationChain {
  return present(body('password'), presence, message)
    .isString()
    .withMessage(message)
    .bail()
    .isLength({ min: MIN_PASSWORD_LENGTH })
    .withMessage(message)
    .bail()
    .isLength({ max: MAX_PASSWORD_LENGTH })
    .withMessage(`Password must be at most ${MAX_PASSWORD_LENGTH} characters`);
}

function name(field: 'firstName' | 'lastName', presence: Presence): ValidationChain {
  return present(body(field), presence, `Must include ${field}`)
    .isString()
    .withMessage(`${field} must be a string`)
    .bail()
    .isLength({ max: MAX_NAME_LENGTH })
    .withMessage(`${field} must be at most ${MAX_NAME_LENGTH} characters`);
}

function permissionFlags(presence: Presence): ValidationChain {
  // A JSON integer only: "1", 1.5 and true are all rejected.
  return present(body('permissionFlags'), presence, 'Must include permissionFlags')
    .custom((value) => Number.isInteger(value) && value >= 0 && value <= MAX_PERMISSION_FLAGS)
    .withMessage(`permissionFlags must be an integer from 0 to ${MAX_PERMISSION_FLAGS}`);
}

function integerQuery(field: string, min: number, max: number): ValidationChain {
  // Repeated parameters arrive as arrays and are refused like any other non-number.
  return query(field)
    .optional()
    .custom((value) => typeof value === 'string' && /^\d{1,7}$/.test(value) && Number(value) >= min && Number(value) <= max)
    .withMessage(`${field} must be an integer from ${min} to ${max}`)
    .toInt();
}

const SEED_PASSWORD_MESSAGE = 'Must include password (5+ characters)';

export const createUser = [
  email('required'),
  password('required', SEED_PASSWORD_MESSAGE),
  name('firstName', 'optional'),
  name('lastName', 'optional'),
];

export const putUser = [
  email('required'),
  password('required', SEED_PASSWORD_MESSAGE),
  name('firstName', 'required'),
  name('lastName', 'required'),
  permissionFlags('required'),
];

export const patchUser = [
  email('optional'),
  password('optional', 'Password must be 5+ characters'),
  name('firstName', 'optional'),
  name('lastName', 'optional'),
  permissionFlags('optional'),
];

export function listUsers(maxPageSize: number): ValidationChain[] {
  return [integerQuery('limit', 1, maxPageSize), integerQuery('page', 0, MAX_PAGE)];
}
