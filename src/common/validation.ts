// Field rules are written once per operation as express-validator schemas (checkSchema). The same
// object runs as validation here and becomes the operation's OpenAPI body or parameters in
// openapi/openapi.kit.ts (`bodyOf`, `queryOf`). Failures become seed 000's 400 `{ errors: [...] }`.
import type { RequestHandler } from 'express';
import {
  checkSchema,
  validationResult,
  type CustomValidator,
  type ParamSchema,
  type Schema,
  type ValidationError,
} from 'express-validator';
import { emailProblem, normalizeEmail } from './email';
import { InvalidRequestError } from './errors';

export type { Schema as FieldRules } from 'express-validator';

/**
 * Marks a query parameter or a request body in the OpenAPI document as generated from the rules the
 * server checks (its value names where they are): the generators put it there, and a test holds every
 * operation to it (test/openapi/request-rules.test.ts).
 */
export const RULES_MARK = 'x-request-rules';
export const withRulesFrom = <T extends object>(source: string, described: T): T & { [RULES_MARK]: string } => ({
  ...described,
  [RULES_MARK]: source,
});

export const MAX_EMAIL_LENGTH = 254;
/** argon2 would hash more, but a megabyte password is a denial-of-service attempt, not a password. */
export const MAX_PASSWORD_LENGTH = 1024;
/** Seed 000: passwords have at least 5 characters (docs/decisions.md, Users). */
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

/** The operation's rules, then a check that answers 400 with every failed field. */
export function validate(rules: Schema): RequestHandler[] {
  return [...checkSchema(rules), rejectInvalid];
}

/** The operation's rules run over a plain object (the command line's own input); the messages of what failed. */
export async function problemsWith(rules: Schema, body: Record<string, unknown>): Promise<string[]> {
  const req = { body };
  await checkSchema(rules, ['body']).run(req);
  return validationResult(req)
    .array({ onlyFirstError: true })
    .map((error) => String(error.msg));
}

/** What a rule written as a function means, for the OpenAPI document, which cannot read functions. */
export type DocumentedAs = Record<string, unknown>;
type CustomRule = Exclude<ParamSchema['custom'], boolean | undefined> & { openapi: DocumentedAs };

/** A custom check that says what it accepts in the document's terms (a JSON Schema fragment). */
export function customRule(check: CustomValidator, errorMessage: string | undefined, openapi: DocumentedAs, bail = false): CustomRule {
  return { options: check, ...(errorMessage !== undefined && { errorMessage }), ...(bail && { bail: true }), openapi };
}

/** A check written as "what is wrong with it, or null": the problem is the 400's message; stops the field's chain. */
export function problemRule(problemOf: (value: unknown) => string | null, openapi: DocumentedAs): CustomRule {
  return customRule(
    (value: unknown) => {
      const problem = problemOf(value);
      if (problem) throw new Error(problem);
      return true;
    },
    undefined,
    openapi,
    true,
  );
}

export type Presence = 'required' | 'optional';

/** Where a body field is read, and whether it must be there. */
export function inBody(presence: Presence, missingMessage: string): ParamSchema {
  return presence === 'optional'
    ? { in: ['body'], optional: true }
    : { in: ['body'], exists: { errorMessage: missingMessage, bail: true } };
}

/** An email field: normalised as stored and compared (common/email.ts), then checked as an address. */
export function emailField(presence: Presence): ParamSchema {
  return {
    ...inBody(presence, 'Must include email'),
    isString: { errorMessage: 'Email must be a string', bail: true },
    customSanitizer: { options: normalizeEmail },
    custom: problemRule((value) => emailProblem(value as string), {}),
    isLength: { options: { max: MAX_EMAIL_LENGTH }, errorMessage: `Email must be at most ${MAX_EMAIL_LENGTH} characters`, bail: true },
    isEmail: { errorMessage: 'Must be a valid email address' },
  };
}

/** The highest page number a list takes (`page` counts from 0). */
export const MAX_PAGE = 1_000_000;

function integerQuery(field: string, min: number, max: number): ParamSchema {
  // Repeated parameters arrive as arrays and are refused like any other non-number.
  return {
    in: ['query'],
    optional: true,
    custom: customRule(
      (value) => typeof value === 'string' && /^\d{1,7}$/.test(value) && Number(value) >= min && Number(value) <= max,
      `${field} must be an integer from ${min} to ${max}`,
      { type: 'integer', minimum: min, maximum: max },
    ),
    toInt: true,
  };
}

/** `?limit=&page=` of a list: limit 1..maxPageSize (default maxPageSize), page from 0. */
export const pageRules = (maxPageSize: number): Schema => ({
  limit: integerQuery('limit', 1, maxPageSize),
  page: integerQuery('page', 0, MAX_PAGE),
});
