// The OpenID Connect standard claims (OIDC Core §5.1) a person's record holds besides seed 000's
// fields: each with its rule, written once. The users API takes them as `claims` (users.validation.ts,
// and the OpenAPI document from it); the OpenID provider releases them by scope (docs/oauth.md, Claims).
// name, given_name, family_name, email and picture come from the seed's own fields instead.

/** The longest text any one claim may hold. */
export const MAX_CLAIM_LENGTH = 200;

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
};

const isTimeZone = (value: string): boolean => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return /^[A-Za-z_+\-/0-9]+$/.test(value);
  } catch {
    return false;
  }
};

const isLocale = (value: string): boolean => {
  try {
    // BCP 47 (OIDC Core writes en-US; en_US is accepted by many clients, not by this check).
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
};

interface ClaimRule {
  /** What the field must be, in words: the 400's message. */
  rule: string;
  check: (value: string) => boolean;
  /** The same rule as a JSON Schema fragment, for the OpenAPI document. */
  schema: Record<string, unknown>;
}

const text: ClaimRule = { rule: 'text', check: () => true, schema: {} };
const url: ClaimRule = { rule: 'an http or https URL', check: isHttpUrl, schema: { format: 'uri' } };

/** The single-valued claims, each with its rule. */
export const CLAIM_RULES = {
  middle_name: text,
  nickname: text,
  preferred_username: text,
  profile: url,
  website: url,
  gender: text,
  birthdate: {
    rule: 'YYYY-MM-DD, or YYYY, or 0000-MM-DD',
    check: (value: string) =>
      /^\d{4}(-\d{2}-\d{2})?$/.test(value) && (value.length === 4 || !Number.isNaN(Date.parse(value.replace(/^0000/, '2000')))),
    schema: { pattern: '^\\d{4}(-\\d{2}-\\d{2})?$' },
  },
  zoneinfo: { rule: 'a time zone of the IANA database, such as Europe/Paris', check: isTimeZone, schema: {} },
  locale: { rule: 'a BCP 47 language tag, such as en-US', check: isLocale, schema: {} },
  phone_number: {
    rule: 'an E.164 number, such as +15550100, with an optional ;ext=123',
    check: (value: string) => /^\+[1-9]\d{1,14}(;ext=\d{1,10})?$/.test(value),
    schema: { pattern: '^\\+[1-9]\\d{1,14}(;ext=\\d{1,10})?$' },
  },
} as const satisfies Record<string, ClaimRule>;
export type ClaimField = keyof typeof CLAIM_RULES;
export const CLAIM_FIELDS = Object.keys(CLAIM_RULES) as ClaimField[];

/** The members of the `address` claim (OIDC Core §5.1.1), all text. */
export const ADDRESS_FIELDS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];

export type StoredClaims = Partial<Record<ClaimField, string>> & { address?: Partial<Record<AddressField, string>> };

/** Why a `claims` value is refused, or null when it can be stored as it is. */
export function claimsProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'claims must be an object';
  for (const [field, member] of Object.entries(value as Record<string, unknown>)) {
    if (field === 'address') {
      if (typeof member !== 'object' || member === null || Array.isArray(member)) return 'claims.address must be an object';
      for (const [part, partValue] of Object.entries(member as Record<string, unknown>)) {
        if (!(ADDRESS_FIELDS as readonly string[]).includes(part))
          return `claims.address.${part} is not an address field (${ADDRESS_FIELDS.join(', ')})`;
        if (typeof partValue !== 'string' || partValue.length > MAX_CLAIM_LENGTH)
          return `claims.address.${part} must be text of at most ${MAX_CLAIM_LENGTH} characters`;
      }
      continue;
    }
    if (!(field in CLAIM_RULES)) return `claims.${field} is not a claim this server keeps (${[...CLAIM_FIELDS, 'address'].join(', ')})`;
    const { rule, check } = CLAIM_RULES[field as ClaimField];
    if (typeof member !== 'string' || member.length > MAX_CLAIM_LENGTH || (member !== '' && !check(member)))
      return `claims.${field} must be ${rule}, at most ${MAX_CLAIM_LENGTH} characters`;
  }
  return null;
}

/** A checked `claims` value as stored: an empty text means the claim is not shared, so it is left out. */
export function storedClaims(value: Record<string, unknown>): StoredClaims {
  const kept = (entries: Record<string, unknown>) => Object.fromEntries(Object.entries(entries).filter(([, member]) => member !== ''));
  const { address, ...single } = value;
  const stored: StoredClaims = kept(single);
  const parts = address ? kept(address as Record<string, unknown>) : {};
  if (Object.keys(parts).length > 0) stored.address = parts;
  return stored;
}

/** The `claims` field as a JSON Schema, for the OpenAPI document. */
export const CLAIMS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'OpenID Connect standard claims (OIDC Core 5.1) the person chooses to share; a PUT or PATCH with claims replaces them all.',
  properties: {
    ...Object.fromEntries(
      CLAIM_FIELDS.map((field) => [
        field,
        { type: 'string', maxLength: MAX_CLAIM_LENGTH, description: CLAIM_RULES[field].rule, ...CLAIM_RULES[field].schema },
      ]),
    ),
    address: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, { type: 'string', maxLength: MAX_CLAIM_LENGTH }])),
    },
  },
};
