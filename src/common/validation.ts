// Runs express-validator chains and turns their findings into seed 000's 400 `{ errors: [...] }`.
import type { RequestHandler } from 'express';
import { body, validationResult, type ValidationChain, type ValidationError } from 'express-validator';
import { emailProblem, normalizeEmail } from './email';
import { InvalidRequestError } from './errors';

export const MAX_EMAIL_LENGTH = 254;
/** argon2 would hash more, but a megabyte password is a denial-of-service attempt, not a password. */
export const MAX_PASSWORD_LENGTH = 1024;
/** Seed 000: passwords have at least 5 characters. */
export const MIN_PASSWORD_LENGTH = 5;

// A value typed into one of these fields could be a credential, so it is never echoed back.
const SECRET_FIELD = /password|secret|token/i;

function withoutSecrets(item: ValidationError): ValidationError {
  if (item.type === 'field' && SECRET_FIELD.test(item.path)) {
    const rest: Partial<ValidationError> = { ...item };
    delete rest.value;
    return rest as ValidationError;
  }
  return item;
}

const rejectInvalid: RequestHandler = (req, _res, next) => {
  const result = validationResult(req);
  if (!result.isEmpty()) {
    throw new InvalidRequestError(result.array({ onlyFirstError: true }).map(withoutSecrets));
  }
  next();
};

/** The chains, then a check that answers 400 with every failed field. */
export function validate(chains: ValidationChain[]): RequestHandler[] {
  return [...chains, rejectInvalid];
}

export type Presence = 'required' | 'optional';

export function present(chain: ValidationChain, presence: Presence, missingMessage: string): ValidationChain {
  return presence === 'optional' ? chain.optional() : chain.exists().withMessage(missingMessage).bail();
}

/** An email field: normalised as stored and compared (common/email.ts), then checked as an address. */
export function email(presence: Presence): ValidationChain {
  return present(body('email'), presence, 'Must include email')
    .isString()
    .withMessage('Email must be a string')
    .bail()
    .customSanitizer(normalizeEmail)
    .custom((value: string) => {
      const problem = emailProblem(value);
      if (problem) throw new Error(problem);
      return true;
    })
    .bail()
    .isLength({ max: MAX_EMAIL_LENGTH })
    .withMessage(`Email must be at most ${MAX_EMAIL_LENGTH} characters`)
    .bail()
    .isEmail()
    .withMessage('Must be a valid email address');
}
