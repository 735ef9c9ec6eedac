// Query parameters and JSON body fields declared once per operation: a field is a rule as the OpenAPI
// document states it and the reading that holds a value to it (a Refusal otherwise, worded by the
// surface's presenter). An operation's fields give both its reading (`readQuery`, `readBody`) and its
// document's parameters or body (`queryParametersOf`, `bodySchemaOf`), so neither can say what the
// other does not.
import { MAX_PAGE, withRulesFrom } from './validation';
import type { Request } from 'express';
import { Refusal } from './refusals';

/** One query parameter or body member: its rule as the document states it, and the reading that holds a value to it. */
export interface RequestField<T> {
  readonly description?: string;
  readonly schema: Readonly<Record<string, unknown>>;
  /** The value, or a Refusal; `undefined` when it is absent (a default may stand in). */
  read(value: unknown, name: string): T;
}

const refused = (name: string, rule: string) => new Refusal('invalid', `${name} must be ${rule}`);

/** A search, a cursor or a filter: one value of 1 to `max` characters. */
export const textField = (description: string, max: number): RequestField<string | undefined> => ({
  description,
  schema: { type: 'string', minLength: 1, maxLength: max },
  read(value, name) {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '' || value.length > max) throw refused(name, `one value of 1 to ${max} characters`);
    return value;
  },
});

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T/;

/** A time, ISO 8601 with a date and a time, of at most `max` characters. */
export const timeField = (description: string, max: number): RequestField<Date | undefined> => ({
  description,
  schema: { type: 'string', format: 'date-time', maxLength: max },
  read(value, name) {
    const written = textField(description, max).read(value, name);
    if (written === undefined) return undefined;
    const date = new Date(written);
    if (!ISO_TIME.test(written) || Number.isNaN(date.getTime())) throw refused(name, 'an ISO 8601 date and time');
    return date;
  },
});

/** How many on a page: 1 to `max`, that many when absent. */
export const limitField = (max: number): RequestField<number> => ({
  schema: { type: 'integer', minimum: 1, maximum: max, default: max },
  read(value, name) {
    const parsed = value === undefined ? max : typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : NaN;
    if (!(parsed >= 1 && parsed <= max)) throw refused(name, `1 to ${max}`);
    return parsed;
  },
});

/** One of `values`. */
export const oneOfField = <T extends string>(values: readonly T[], description?: string): RequestField<T | undefined> => ({
  ...(description !== undefined && { description }),
  schema: { type: 'string', enum: [...values] },
  read(value, name) {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !values.includes(value as T)) throw refused(name, `one of ${values.join(', ')}`);
    return value as T;
  },
});

/**
 * A field as a page's form or link sends it: an empty value is no value (a search box left empty, a
 * select on "any"); the document says so (no minLength, `''` among the values).
 */
export function onPage<T>(field: RequestField<T | undefined>): RequestField<T | undefined> {
  const { minLength: _minLength, enum: values, ...schema } = field.schema as { minLength?: number; enum?: string[] };
  return {
    ...field,
    schema: { ...schema, ...(values && { enum: ['', ...values] }) },
    read: (value, name) => (value === '' ? undefined : field.read(value, name)),
  };
}

/**
 * A page form's field whose rule its service holds it to, answering with the form again and the rule's
 * own message: the document states the rule; the reading passes any text on to the service.
 */
export const checkedByService = (field: RequestField<string | undefined>): RequestField<string | undefined> => ({
  ...field,
  read: (value) => (typeof value === 'string' ? value : undefined),
});

/** A page form's checkboxes of one name: the values checked (none, one or many), each one of `values` as the service holds them. */
export const checkboxesField = (values: readonly string[], description: string): RequestField<string[]> => ({
  description,
  // One box checked sends one value; more send the name again.
  schema: {
    anyOf: [
      { type: 'string', enum: [...values] },
      { type: 'array', items: { type: 'string', enum: [...values] } },
    ],
  },
  read: (value) => [value ?? []].flat().filter((item): item is string => typeof item === 'string'),
});

type Fields = Readonly<Record<string, RequestField<unknown>>>;
type Read<F extends Fields> = { [K in keyof F]: ReturnType<F[K]['read']> };

/** The operation's query, each parameter checked by its field (a repeated one is refused). */
export function readQuery<F extends Fields>(fields: F, req: Request): Read<F> {
  return Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, field.read(req.query[name], name)])) as Read<F>;
}

/** The operation's query parameters as the document states them. */
export const queryParametersOf = (fields: Fields) =>
  Object.entries(fields).map(([name, field]) =>
    withRulesFrom('query fields (common/request-fields.ts)', {
      name,
      in: 'query',
      required: false,
      ...(field.description !== undefined && { description: field.description }),
      schema: field.schema,
    }),
  );

/** A text field of a JSON body: `minLength` to `maxLength` characters, matching `pattern` when given (`rule` says it in words). */
export const stringField = (
  description: string,
  options: {
    maxLength: number;
    minLength?: number;
    pattern?: RegExp;
    rule?: string;
    /** What else is wrong with a value of the right length (in full words), or null; the document says it in `description`. */
    problem?: (value: string) => string | null;
  },
): RequestField<string | undefined> => {
  const {
    maxLength,
    minLength = 0,
    pattern,
    rule = minLength > 0 ? `text of ${minLength} to ${maxLength} characters` : `text of at most ${maxLength} characters`,
    problem,
  } = options;
  return {
    description,
    schema: { type: 'string', ...(minLength > 0 && { minLength }), maxLength, ...(pattern && { pattern: pattern.source }) },
    read(value, name) {
      if (value === undefined) return undefined;
      if (typeof value !== 'string' || value.length < minLength || value.length > maxLength || (pattern && !pattern.test(value)))
        throw refused(name, rule);
      const wrong = problem?.(value);
      if (wrong) throw new Refusal('invalid', wrong);
      return value;
    },
  };
};

/** A whole number of a JSON body, `min` to `max`. */
export const integerField = (description: string, min: number, max: number): RequestField<number | undefined> => ({
  description,
  schema: { type: 'integer', minimum: min, maximum: max },
  read(value, name) {
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) throw refused(name, `${min} to ${max}`);
    return value;
  },
});

/**
 * A list of texts of a JSON body: `minItems` to `maxItems` of them, each at most `maxLength` characters
 * (`itemProblem` says what else is wrong with one, in full words, or null).
 */
export const listField = (
  description: string,
  options: { minItems: number; maxItems: number; maxLength: number; itemProblem?: (item: string) => string | null },
): RequestField<string[] | undefined> => {
  const { minItems, maxItems, maxLength, itemProblem } = options;
  return {
    description,
    schema: { type: 'array', items: { type: 'string', maxLength }, minItems, maxItems },
    read(value, name) {
      if (value === undefined) return undefined;
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw refused(name, 'an array of strings');
      const items = value;
      if (items.length < minItems || items.length > maxItems) throw refused(name, `a list of ${minItems} to ${maxItems}`);
      const wrong = items.map((item) =>
        item.length > maxLength ? `${name} holds one longer than ${maxLength} characters` : itemProblem?.(item),
      );
      const first = wrong.find(Boolean);
      if (first) throw new Refusal('invalid', first);
      return items;
    },
  };
};

/**
 * Text whose every value is taken (a page's `return_to`, which falls back to /home): the field's
 * description says what the server does with it; a repeated one is no value.
 */
export const anyTextField = (description: string): RequestField<string | undefined> => ({
  description,
  schema: { type: 'string' },
  read: (value) => (typeof value === 'string' ? value : undefined),
});

/** A token the server made (`randomToken()`: 32 random bytes, base64url). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * A token the server handed out (a form's CSRF token, a mailed link's): a value of another shape is
 * no token, refused as a wrong one would be (the description says how).
 */
export const tokenField = (description: string): RequestField<string | undefined> => ({
  description,
  schema: { type: 'string', minLength: 43, maxLength: 43, pattern: TOKEN_SHAPE.source },
  read: (value) => (typeof value === 'string' && TOKEN_SHAPE.test(value) ? value : undefined),
});

/** A page of a list on a page (from 0), the first when absent. */
export const pageNumberField = (description: string): RequestField<number> => ({
  description,
  schema: { type: 'integer', minimum: 0, maximum: MAX_PAGE, default: 0 },
  read(value, name) {
    if (value === undefined || value === '') return 0;
    if (typeof value !== 'string' || !/^\d{1,7}$/.test(value) || Number(value) > MAX_PAGE) throw refused(name, `0 to ${MAX_PAGE}`);
    return Number(value);
  },
});

/** A JSON object of a JSON body, checked by what it is given to (a WebAuthn response, a JWK Set). */
export const objectField = (description: string): RequestField<Record<string, unknown> | undefined> => ({
  description,
  schema: { type: 'object' },
  read(value, name) {
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refused(name, 'a JSON object');
    return value as Record<string, unknown>;
  },
});

/** A JSON body's members, each read by its field; those in `required` must be there. */
export function readBody<F extends Fields>(fields: F, required: readonly (keyof F & string)[], body: unknown): Read<F> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Refusal('invalid', 'The body must be a JSON object');
  const members = body as Record<string, unknown>;
  const missing = required.find((name) => members[name] === undefined);
  if (missing !== undefined) throw new Refusal('invalid', `${missing} is required`);
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [name, field.read(Object.hasOwn(members, name) ? members[name] : undefined, name)]),
  ) as Read<F>;
}

/** A page form's fields (a form posted with no body has none): read as a JSON body's members are. */
export const readForm = <F extends Fields>(fields: F, req: Request): Read<F> => readBody(fields, [], (req.body as unknown) ?? {});

/** A JSON body's schema as the document states it (a form's too: its members are the same). */
export const bodySchemaOf = (fields: Fields, required: readonly string[] = []) =>
  withRulesFrom('body fields (common/request-fields.ts)', {
    type: 'object',
    ...(required.length > 0 && { required: [...required] }),
    properties: Object.fromEntries(
      Object.entries(fields).map(([name, field]) => [
        name,
        { ...field.schema, ...(field.description !== undefined && { description: field.description }) },
      ]),
    ),
  });
