// UPSTREAM_PROVIDERS (docs/upstream.md): what is accepted, the presets, and each problem named at
// start-up with the provider's position and never a secret.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../src/config';
import { emailTrusted, parseUpstreamProviders } from '../../src/upstream/upstream.settings';
import { testConfig } from '../helpers/app';
import { personOf } from '../../src/upstream/upstream.service';
import { MAX_EMAIL_LENGTH } from '../../src/common/validation';
import { MAX_CLAIM_LENGTH } from '../../src/users/users.claims';
import { MAX_NAME_LENGTH } from '../../src/users/sign-up.service';

const valid = { id: 'corp', name: 'Corp SSO', issuer: 'https://sso.corp.example', client_id: 'app', client_secret: 'secret-value' };
const problemsOf = (value: unknown) => parseUpstreamProviders(JSON.stringify(value)).problems;

it('reads a JSON array, with defaults for what is left out', () => {
  const { providers, problems } = parseUpstreamProviders(JSON.stringify([valid]));
  expect(problems).toEqual([]);
  expect(providers).toEqual([
    {
      id: 'corp',
      name: 'Corp SSO',
      issuer: 'https://sso.corp.example',
      clientId: 'app',
      clientSecret: 'secret-value',
      authMethod: 'client_secret_basic',
      privateKey: null,
      scopes: ['openid', 'email', 'profile'],
      claims: {
        email: 'email',
        email_verified: 'email_verified',
        given_name: 'given_name',
        family_name: 'family_name',
        name: 'name',
        picture: 'picture',
      },
      trustedEmailDomains: ['*'],
      trustAmr: false,
      trustIdJag: false,
    },
  ]);
});

it('reads the array from a file when the value is a path', () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'upstream-')), 'providers.json');
  writeFileSync(file, JSON.stringify([valid]));
  expect(parseUpstreamProviders(file).providers.map((provider) => provider.id)).toEqual(['corp']);
  expect(parseUpstreamProviders(`${file}.missing`).problems).toEqual([`names a file that cannot be read (${file}.missing)`]);
});

it('fills a preset: Google, Microsoft (the common tenant, no email domain trusted), GitLab, Apple', () => {
  const { providers } = parseUpstreamProviders(
    JSON.stringify(
      ['google', 'microsoft', 'gitlab', 'apple'].map((preset) => ({
        preset,
        id: preset,
        name: preset,
        client_id: 'id',
        client_secret: 'secret',
      })),
    ),
  );
  expect(providers.map(({ id, issuer, scopes, trustedEmailDomains }) => ({ id, issuer, scopes, trustedEmailDomains }))).toEqual([
    { id: 'google', issuer: 'https://accounts.google.com', scopes: ['openid', 'email', 'profile'], trustedEmailDomains: ['*'] },
    {
      id: 'microsoft',
      issuer: 'https://login.microsoftonline.com/common/v2.0',
      scopes: ['openid', 'email', 'profile'],
      trustedEmailDomains: [],
    },
    { id: 'gitlab', issuer: 'https://gitlab.com', scopes: ['openid', 'email', 'profile'], trustedEmailDomains: ['*'] },
    { id: 'apple', issuer: 'https://appleid.apple.com', scopes: ['openid'], trustedEmailDomains: ['*'] },
  ]);
  // An entry overrides its preset: a company's own tenant.
  const tenant = parseUpstreamProviders(
    JSON.stringify([{ ...valid, preset: 'microsoft', issuer: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0' }]),
  );
  expect(tenant.providers[0].issuer).toBe('https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0');
});

it('takes private_key_jwt with a private JWK', () => {
  const key = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd', alg: 'ES256', kid: 'k1' };
  const { providers, problems } = parseUpstreamProviders(JSON.stringify([{ ...valid, client_secret: undefined, private_key_jwk: key }]));
  expect(problems).toEqual([]);
  expect(providers[0]).toMatchObject({ authMethod: 'private_key_jwt', privateKey: key, clientSecret: null });
  expect(problemsOf([{ ...valid, token_endpoint_auth_method: 'private_key_jwt' }])).toEqual([
    '[0].private_key_jwk must be a private JWK with "alg" for private_key_jwt',
  ]);
});

it.each([
  ['not an array', { ...valid }, 'must be a JSON array of at most 20 providers'],
  ['an id with capitals', [{ ...valid, id: 'Corp' }], '[0].id must be 1 to 32 lower-case letters, digits or hyphens, and not github'],
  ['github as an id', [{ ...valid, id: 'github' }], '[0].id must be 1 to 32 lower-case letters, digits or hyphens, and not github'],
  ['no name', [{ ...valid, name: ' ' }], '[0].name must be text of 1 to 40 characters'],
  [
    'an http issuer off loopback',
    [{ ...valid, issuer: 'http://sso.corp.example' }],
    '[0].issuer must be an https URL without query or fragment (http only on a loopback host)',
  ],
  [
    'an issuer with a query',
    [{ ...valid, issuer: 'https://sso.corp.example/?tenant=1' }],
    '[0].issuer must be an https URL without query or fragment (http only on a loopback host)',
  ],
  ['no client_id', [{ ...valid, client_id: '' }], '[0].client_id is required'],
  [
    'no secret for client_secret_post',
    [{ ...valid, client_secret: undefined, token_endpoint_auth_method: 'client_secret_post' }],
    '[0].client_secret is required for client_secret_post',
  ],
  [
    'an unknown auth method',
    [{ ...valid, token_endpoint_auth_method: 'tls_client_auth' }],
    '[0].token_endpoint_auth_method must be one of client_secret_basic, client_secret_post, private_key_jwt, none',
  ],
  ['scopes without openid', [{ ...valid, scopes: ['email'] }], '[0].scopes must include openid'],
  [
    'an unknown claim mapping',
    [{ ...valid, claims: { phone: 'tel' } }],
    '[0].claims may map email, email_verified, given_name, family_name, name, picture to claim names',
  ],
  [
    'a bad domain',
    [{ ...valid, trusted_email_domains: ['not a domain'] }],
    '[0].trusted_email_domains must be an array of domain names, or ["*"]',
  ],
  ['trust_amr as text', [{ ...valid, trust_amr: 'yes' }], '[0].trust_amr must be true or false'],
  ['trust_id_jag as text', [{ ...valid, trust_id_jag: 'yes' }], '[0].trust_id_jag must be true or false'],
  ['an unknown preset', [{ ...valid, preset: 'okta' }], '[0].preset must be one of google, microsoft, gitlab, apple'],
  ['the same id twice', [valid, { ...valid, name: 'Again' }], 'has the id "corp" more than once'],
])('names %s', (_case, value, problem) => {
  expect(problemsOf(value)).toEqual([problem]);
});

it('stops start-up with the problems under UPSTREAM_PROVIDERS, never repeating a secret', () => {
  let error: unknown;
  try {
    testConfig({ UPSTREAM_PROVIDERS: JSON.stringify([{ ...valid, client_secret: 'very-secret-value', id: 'Bad' }]) });
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).problems).toEqual([
    'UPSTREAM_PROVIDERS [0].id must be 1 to 32 lower-case letters, digits or hyphens, and not github',
  ]);
  expect(String(error)).not.toContain('very-secret-value');
  expect(() => testConfig({ UPSTREAM_PROVIDERS: '[{' })).toThrow('UPSTREAM_PROVIDERS is not readable JSON');
  expect(testConfig({}).upstream).toEqual({ providers: [], timeoutMs: 10_000 });
});

describe('emailTrusted', () => {
  const provider = (domains: string[]) =>
    parseUpstreamProviders(JSON.stringify([{ ...valid, trusted_email_domains: domains }])).providers[0];

  it('trusts a verified address in any domain under "*", and only a listed domain without email_verified', () => {
    expect(emailTrusted(provider(['*']), 'a@x.example', true)).toBe(true);
    expect(emailTrusted(provider(['*']), 'a@x.example', undefined)).toBe(false);
    expect(emailTrusted(provider(['*']), 'a@x.example', false)).toBe(false);
    expect(emailTrusted(provider(['corp.example']), 'a@corp.example', undefined)).toBe(true);
    expect(emailTrusted(provider(['corp.example']), 'a@CORP.example', true)).toBe(true);
    expect(emailTrusted(provider(['corp.example']), 'a@other.example', true)).toBe(false);
    expect(emailTrusted(provider(['corp.example']), 'a@corp.example', false)).toBe(false);
  });
});

describe("a provider's claims as this server takes them", () => {
  const [provider] = parseUpstreamProviders(JSON.stringify([valid])).providers;
  const long = (length: number) => 'a'.repeat(length);

  it('leaves out an address or a picture too long for the account, never cuts it, and cuts names', async () => {
    const person = await personOf(provider, {
      sub: 's-1',
      email: `${long(250)}@example.com`,
      name: `${long(150)} ${long(150)}`,
      picture: `https://img.example.com/${long(300)}`,
    });
    expect(person.email).toBeUndefined();
    expect(person.picture).toBeUndefined();
    expect([person.firstName?.length, person.lastName?.length]).toEqual([MAX_NAME_LENGTH, MAX_NAME_LENGTH]);
  });

  it('takes them whole at the limits', async () => {
    // The longest address POST /users takes: a 64-character local part, 63-character labels.
    const domain = `${long(63)}.${long(63)}.${long(MAX_EMAIL_LENGTH - 64 - 1 - 63 - 1 - 63 - 1 - 4)}.com`;
    const email = `${long(64)}@${domain}`;
    expect(email).toHaveLength(MAX_EMAIL_LENGTH);
    const picture = `https://img.example.com/${long(MAX_CLAIM_LENGTH - 'https://img.example.com/'.length)}`;
    const person = await personOf(provider, { sub: 's-2', email, given_name: 'Ada', family_name: 'Lovelace', picture });
    expect(person).toMatchObject({ email, picture, firstName: 'Ada', lastName: 'Lovelace' });
  });

  it.each([
    ['a zero-width space', 'ada\u200b@example.org'],
    ['a Cyrillic о among Latin letters', 'ad\u043e@example.org'],
    ['a right-to-left mark', 'ada\u200f@example.org'],
    ['a tab', 'ada\t@example.org'],
    ['no address at all', 'not-an-address'],
  ])('leaves out an address POST /users would refuse: %s (one email rule for every way in)', async (_case, email) => {
    const person = await personOf(provider, { sub: 's-3', email, email_verified: true });
    expect(person.email).toBeUndefined();
  });
});
