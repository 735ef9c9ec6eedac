// UPSTREAM_PROVIDERS (docs/upstream.md): the OpenID providers people may sign in through, as a JSON
// array given inline or in a file. Read once at start-up by config.ts; every problem is reported with
// the provider's position, never with a secret's value. A `preset` fills what a well-known provider
// needs (its issuer, scopes and how far its email claims are trusted); the entry may override any of it.
import { readFileSync } from 'node:fs';

/** What the provider's ID token or userinfo calls each of the fields an account here takes. */
export interface ClaimNames {
  email: string;
  email_verified: string;
  given_name: string;
  family_name: string;
  name: string;
  picture: string;
}

export type UpstreamAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

export interface UpstreamProvider {
  /** In the paths /auth/upstream/<id> and /auth/upstream/<id>/callback. */
  readonly id: string;
  /** Shown on pages: "Sign in with <name>". */
  readonly name: string;
  /** Discovered at `<issuer>/.well-known/openid-configuration` on first use. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | null;
  readonly authMethod: UpstreamAuthMethod;
  /** For private_key_jwt: a private JWK (with `alg`). */
  readonly privateKey: Readonly<Record<string, unknown>> | null;
  readonly scopes: readonly string[];
  readonly claims: Readonly<ClaimNames>;
  /**
   * The email domains whose addresses this provider may vouch for: `*` for any (with
   * `email_verified: true`), or names the operator owns (then an address there counts as verified
   * even when the provider sends no `email_verified`, as Microsoft does).
   */
  readonly trustedEmailDomains: readonly string[];
  /** The provider's `amr` values are taken into this server's session (else only `fed` is). */
  readonly trustAmr: boolean;
  /**
   * Its Identity Assertion JWT Authorization Grants (ID-JAG) are taken at the token endpoint (the JWT
   * bearer grant, RFC 7523): the company's IdP vouching for a person linked to it here.
   */
  readonly trustIdJag: boolean;
}

export const UPSTREAM_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const MAX_UPSTREAM_PROVIDERS = 20;
const MAX_NAME_LENGTH = 40;
const AUTH_METHODS: readonly UpstreamAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'];
/** Ids that name something else under /auth/. */
const RESERVED_IDS = new Set(['github']);

const STANDARD_CLAIMS: ClaimNames = {
  email: 'email',
  email_verified: 'email_verified',
  given_name: 'given_name',
  family_name: 'family_name',
  name: 'name',
  picture: 'picture',
};

interface Preset {
  issuer: string;
  scopes: string[];
  trusted_email_domains: string[];
}

/** docs/upstream.md, "Presets", says why each is as it is. */
export const UPSTREAM_PRESETS: Readonly<Record<string, Preset>> = {
  google: { issuer: 'https://accounts.google.com', scopes: ['openid', 'email', 'profile'], trusted_email_domains: ['*'] },
  // The `common` tenant: openid-client checks each ID token's `iss` against the discovered
  // `https://login.microsoftonline.com/{tenantid}/v2.0` with the token's own `tid`. Microsoft does not
  // verify the `email` claim, so no domain is trusted until the operator lists their own.
  microsoft: { issuer: 'https://login.microsoftonline.com/common/v2.0', scopes: ['openid', 'email', 'profile'], trusted_email_domains: [] },
  gitlab: { issuer: 'https://gitlab.com', scopes: ['openid', 'email', 'profile'], trusted_email_domains: ['*'] },
  // Asking Apple for `email` or `name` requires response_mode=form_post, which this server does not
  // take: Apple gives the account id only, so Apple is linked from /account rather than signed up with.
  apple: { issuer: 'https://appleid.apple.com', scopes: ['openid'], trusted_email_domains: ['*'] },
};

/** Loopback hosts may be reached over plain http (development, the tests' providers). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The JSON text: the value itself when it starts with `[`, else the file it names. */
function source(raw: string, readFile: (path: string) => string): { text: string } | { problem: string } {
  if (raw.startsWith('[') || raw.startsWith('{')) return { text: raw };
  try {
    return { text: readFile(raw) };
  } catch {
    return { problem: `names a file that cannot be read (${raw})` };
  }
}

function parseOne(entry: unknown, at: string, problems: string[]): UpstreamProvider | null {
  if (!isRecord(entry)) {
    problems.push(`${at} must be an object`);
    return null;
  }
  const presetName = entry.preset;
  const preset = typeof presetName === 'string' ? UPSTREAM_PRESETS[presetName] : undefined;
  if (presetName !== undefined && !preset) {
    problems.push(`${at}.preset must be one of ${Object.keys(UPSTREAM_PRESETS).join(', ')}`);
  }
  const before = problems.length;
  const id = entry.id;
  if (typeof id !== 'string' || !UPSTREAM_ID.test(id) || RESERVED_IDS.has(id)) {
    problems.push(`${at}.id must be 1 to 32 lower-case letters, digits or hyphens, and not github`);
  }
  const name = entry.name;
  if (!nonEmpty(name) || name.length > MAX_NAME_LENGTH) problems.push(`${at}.name must be text of 1 to ${MAX_NAME_LENGTH} characters`);
  const issuer = entry.issuer ?? preset?.issuer;
  const issuerUrl = typeof issuer === 'string' ? URL.parse(issuer) : null;
  if (
    !issuerUrl ||
    !(issuerUrl.protocol === 'https:' || (issuerUrl.protocol === 'http:' && isLoopbackHost(issuerUrl.hostname))) ||
    issuerUrl.search ||
    issuerUrl.hash
  ) {
    problems.push(`${at}.issuer must be an https URL without query or fragment (http only on a loopback host)`);
  }
  if (!nonEmpty(entry.client_id)) problems.push(`${at}.client_id is required`);
  const authMethod = entry.token_endpoint_auth_method ?? (entry.private_key_jwk ? 'private_key_jwt' : 'client_secret_basic');
  if (!AUTH_METHODS.includes(authMethod as UpstreamAuthMethod)) {
    problems.push(`${at}.token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  }
  const secretNeeded = authMethod === 'client_secret_basic' || authMethod === 'client_secret_post';
  if (secretNeeded && !nonEmpty(entry.client_secret)) problems.push(`${at}.client_secret is required for ${String(authMethod)}`);
  const key = entry.private_key_jwk;
  if (authMethod === 'private_key_jwt' && (!isRecord(key) || typeof key.d !== 'string' || typeof key.alg !== 'string')) {
    problems.push(`${at}.private_key_jwk must be a private JWK with "alg" for private_key_jwt`);
  }
  const scopes = entry.scopes ?? preset?.scopes ?? ['openid', 'email', 'profile'];
  if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))) {
    problems.push(`${at}.scopes must be an array of scope names`);
  } else if (!scopes.includes('openid')) problems.push(`${at}.scopes must include openid`);
  const claims = entry.claims ?? {};
  const claimNames = { ...STANDARD_CLAIMS };
  if (!isRecord(claims)) problems.push(`${at}.claims must be an object`);
  else {
    for (const [field, claim] of Object.entries(claims)) {
      if (!(field in STANDARD_CLAIMS) || !nonEmpty(claim)) {
        problems.push(`${at}.claims may map ${Object.keys(STANDARD_CLAIMS).join(', ')} to claim names`);
        break;
      }
      claimNames[field as keyof ClaimNames] = claim;
    }
  }
  const domains = entry.trusted_email_domains ?? preset?.trusted_email_domains ?? ['*'];
  if (!Array.isArray(domains) || !domains.every((domain) => typeof domain === 'string' && /^(\*|[a-z0-9.-]+\.[a-z]{2,})$/i.test(domain))) {
    problems.push(`${at}.trusted_email_domains must be an array of domain names, or ["*"]`);
  }
  if (entry.trust_amr !== undefined && typeof entry.trust_amr !== 'boolean') problems.push(`${at}.trust_amr must be true or false`);
  if (entry.trust_id_jag !== undefined && typeof entry.trust_id_jag !== 'boolean')
    problems.push(`${at}.trust_id_jag must be true or false`);
  if (problems.length > before) return null;
  return Object.freeze({
    id: id as string,
    name: (name as string).trim(),
    issuer: issuer as string,
    clientId: (entry.client_id as string).trim(),
    clientSecret: nonEmpty(entry.client_secret) ? entry.client_secret : null,
    authMethod: authMethod as UpstreamAuthMethod,
    privateKey: authMethod === 'private_key_jwt' ? Object.freeze({ ...(key as Record<string, unknown>) }) : null,
    scopes: Object.freeze([...(scopes as string[])]),
    claims: Object.freeze(claimNames),
    trustedEmailDomains: Object.freeze((domains as string[]).map((domain) => domain.toLowerCase())),
    trustAmr: entry.trust_amr === true,
    trustIdJag: entry.trust_id_jag === true,
  });
}

/**
 * The providers, or the problems (each "…[i].field …", to follow "UPSTREAM_PROVIDERS"). `raw` is the
 * variable's value: a JSON array, or the path of a file holding one.
 */
export function parseUpstreamProviders(
  raw: string | undefined,
  readFile: (path: string) => string = (file) => readFileSync(file, 'utf8'),
): { providers: UpstreamProvider[]; problems: string[] } {
  if (raw === undefined) return { providers: [], problems: [] };
  const found = source(raw, readFile);
  if ('problem' in found) return { providers: [], problems: [found.problem] };
  let list: unknown;
  try {
    list = JSON.parse(found.text);
  } catch {
    return { providers: [], problems: ['is not readable JSON'] };
  }
  if (!Array.isArray(list) || list.length > MAX_UPSTREAM_PROVIDERS) {
    return { providers: [], problems: [`must be a JSON array of at most ${MAX_UPSTREAM_PROVIDERS} providers`] };
  }
  const problems: string[] = [];
  const providers = list.map((entry, index) => parseOne(entry, `[${index}]`, problems));
  const ids = providers.flatMap((provider) => (provider ? [provider.id] : []));
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated) problems.push(`has the id "${repeated}" more than once`);
  return problems.length ? { providers: [], problems } : { providers: providers as UpstreamProvider[], problems };
}

/** Whether the provider may vouch for this address (with what it said of it). */
export function emailTrusted(provider: UpstreamProvider, email: string, verified: boolean | undefined): boolean {
  if (verified === false) return false;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const listed = provider.trustedEmailDomains.includes(domain);
  if (verified === true) return listed || provider.trustedEmailDomains.includes('*');
  return listed;
}
