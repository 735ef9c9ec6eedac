// The authorization endpoint's parts, each on its own (issue 52): every check of AUTHORIZE_CHECKS
// refuses its row, and with that one check taken out of the list the same request is no longer refused
// for that reason (each check carries its rule; no other check holds it too). The lists of the
// endpoint and of PAR differ only where pushing does. Each response mode answers a result and an error
// its own way. Clients are registered in the test database; the stores are the server's own.
import { systemClock } from '../../src/common/clock';
import { ClientModel, type ClientDocument } from '../../src/oauth/clients/clients.model';
import { refusal } from '../../src/oauth/authorize/authorization-request';
import { AUTHORIZE_CHECKS, DEVICE_CHECKS, PUSH_CHECKS } from '../../src/oauth/authorize/checks';
import type { Check } from '../../src/oauth/authorize/checks/check';
import { answer, RESPONSE_MODE_HANDLERS, type AnswerContext } from '../../src/oauth/authorize/response-modes';
import { runChecks, runReview } from '../../src/oauth/authorize/review';
import type { OAuthParameters } from '../../src/oauth/oauth.parameters';
import { RESPONSE_MODES, type ResponseMode } from '../../src/oauth/protocol';
import { createStores } from '../../src/stores';
import { testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { REDIRECT_URI, registerClient } from '../helpers/oauth';

useTestDatabase();

const config = testConfig();
const deps = { config, stores: createStores(), clock: systemClock };
/** A JARM signer that shows what it was given (the key ring's signing is jarm.test.ts's). */
const context: AnswerContext = {
  issuer: 'https://issuer.example',
  sign: async (values, clientId, algorithm) => `signed(${clientId},${algorithm ?? 'RS256'},${JSON.stringify(values)})`,
};
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM';

/** A registered client with these fields set as a registration or an operator would set them. */
async function client(fields: Partial<ClientDocument> = {}): Promise<ClientDocument> {
  const { client_id } = await registerClient({ grants: ['authorization_code', 'implicit'] });
  await ClientModel.updateOne({ _id: client_id }, { $set: fields });
  return (await ClientModel.findById(client_id).lean())!;
}

const review = (checks: readonly Check[], parameters: OAuthParameters, signedIn = true) =>
  runReview(checks, parameters, { signedIn, address: '127.0.0.1' }, deps, context);

/** What the client is told at its redirect URI (query or fragment), or the page refusal's title. */
async function outcomeOf(checks: readonly Check[], parameters: OAuthParameters, signedIn = true): Promise<string> {
  const reviewed = await review(checks, parameters, signedIn);
  if (reviewed.kind === 'consent') return 'consent';
  if (reviewed.kind === 'refusal') return `page: ${reviewed.title}`;
  if (reviewed.kind === 'form_post') return `${reviewed.fields.error}: ${reviewed.fields.error_description}`;
  const url = new URL(reviewed.location);
  const values = new URLSearchParams(url.search.length > 1 ? url.search : url.hash.slice(1));
  return `${values.get('error')}: ${values.get('error_description')}`;
}

const valid = (clientId: string, extra: OAuthParameters = {}): OAuthParameters => ({
  client_id: clientId,
  response_type: 'code',
  redirect_uri: REDIRECT_URI,
  scope: 'openid',
  state: 'st',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  ...extra,
});

it('lets a valid request through every check to the consent page, settled', async () => {
  const { _id } = await client();
  const reviewed = await review(AUTHORIZE_CHECKS, valid(_id, { nonce: 'n', max_age: '60', prompt: 'consent', login_hint: 'a@b.c' }));
  expect(reviewed.kind).toBe('consent');
  if (reviewed.kind !== 'consent') return;
  expect(reviewed.request).toMatchObject({
    redirectUri: REDIRECT_URI,
    responseType: 'code',
    responseMode: 'query',
    scope: ['openid'],
    state: 'st',
    nonce: 'n',
    maxAge: 60,
    prompt: ['consent'],
    loginHint: 'a@b.c',
    codeChallenge: CHALLENGE,
    codeChallengeMethod: 'S256',
  });
});

// [check, the client's fields, the request's changes (undefined removes one), what is answered]
const ROWS: [string, Partial<ClientDocument>, Record<string, string | undefined>, RegExp][] = [
  ['checkClient', {}, { client_id: 'nobody-registered-this' }, /^page: Unknown application$/],
  ['checkRedirectUri', {}, { redirect_uri: 'https://client.example.com/elsewhere' }, /^page: Invalid redirect address$/],
  ['readableRequestObject', {}, { request: 'not.a.jwt' }, /^invalid_request_object: /],
  ['knownPushedRequest', {}, { request_uri: 'urn:ietf:params:oauth:request_uri:unknown' }, /^invalid_request_uri: /],
  [
    'requirePushed',
    { metadata: { require_pushed_authorization_requests: true } },
    {},
    /^invalid_request: authorization requests must be pushed/,
  ],
  [
    'requireSignedObject',
    { metadata: { require_signed_request_object: true } },
    {},
    /^invalid_request: this client must send .* signed request objects/,
  ],
  ['checkState', {}, { state: 'tab\there' }, /^invalid_request: state must be printable ASCII/],
  ['checkResponseType', {}, { response_type: 'code token id_token device' }, /^unsupported_response_type: /],
  [
    'checkResponseMode',
    {},
    { response_type: 'code token', response_mode: 'query', nonce: 'n' },
    /^invalid_request: response_mode must be one of/,
  ],
  ['checkGrantForResponseType', { grants: ['authorization_code'] }, { response_type: 'token', nonce: 'n' }, /^unauthorized_client: /],
  ['checkResource', {}, { resource: 'https://api.unknown.example/' }, /^invalid_target: /],
  ['checkScope', {}, { scope: 'openid everything' }, /^invalid_scope: /],
  [
    'checkNonce',
    {},
    { response_type: 'code id_token' },
    /^invalid_request: response_type code id_token needs the openid scope and a nonce$/,
  ],
  ['checkPrompt', {}, { prompt: 'none login' }, /^invalid_request: prompt must be none/],
  ['checkClaims', {}, { claims: '{not json' }, /^invalid_request: /],
  ['checkDpopJkt', {}, { dpop_jkt: 'short' }, /^invalid_request: dpop_jkt must be a JWK SHA-256 thumbprint/],
  ['checkMaxAge', {}, { max_age: '-1' }, /^invalid_request: max_age must be a number of seconds$/],
  ['checkPkce', {}, { code_challenge: 'too-short' }, /^invalid_request: code_challenge must be 43 to 128 characters/],
  [
    'publicClientPkce',
    { tokenEndpointAuthMethod: 'none' },
    { code_challenge: undefined, code_challenge_method: undefined },
    /^invalid_request: Public clients must send a code_challenge/,
  ],
  [
    'fapiRules',
    { metadata: { fapi_profile: 'fapi2' } },
    { redirect_uri: undefined },
    /^invalid_request: FAPI 2.0 clients must send redirect_uri$/,
  ],
];

it('names every check of the endpoint in the table below', () => {
  const named = new Set(ROWS.map(([name]) => name));
  const unnamed = AUTHORIZE_CHECKS.map((check) => check.name).filter(
    // These settle or open what the others check; each refuses nothing of its own.
    (name) => !named.has(name) && !['openPushedRequest', 'openRequestObject', 'settleResponse'].includes(name),
  );
  expect(unnamed).toEqual([]);
});

it.each(ROWS)('%s refuses its row, and without it the request is not refused so', async (name, fields, changes, expected) => {
  const registered = await client(fields);
  const parameters = Object.fromEntries(
    Object.entries({ ...valid(registered._id), ...changes }).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  expect(await outcomeOf(AUTHORIZE_CHECKS, parameters)).toMatch(expected);
  const without = AUTHORIZE_CHECKS.filter((check) => check.name !== name);
  expect(without).toHaveLength(AUTHORIZE_CHECKS.length - 1);
  // Without the client or its redirect URI the later checks cannot run: those two are shown refusing alone.
  if (name === 'checkClient' || name === 'checkRedirectUri') return;
  expect(await outcomeOf(without, parameters)).not.toMatch(expected);
});

it("tells an anonymous visitor a stranger's client's error on a page, and the client's own error to a signed-in person", async () => {
  const registered = await client();
  const parameters = valid(registered._id, { scope: 'openid everything' });
  expect(await outcomeOf(AUTHORIZE_CHECKS, parameters, false)).toBe('page: Invalid authorization request');
  expect(await outcomeOf(AUTHORIZE_CHECKS, parameters, true)).toMatch(/^invalid_scope: /);
  const operatorsOwn = await client();
  await ClientModel.updateOne({ _id: operatorsOwn._id }, { $unset: { ownerId: 1 } });
  expect(await outcomeOf(AUTHORIZE_CHECKS, valid(operatorsOwn._id, { scope: 'openid everything' }), false)).toMatch(/^invalid_scope: /);
});

it('checks a pushed request as the endpoint does, but for what pushing itself settles', () => {
  const names = (checks: readonly Check[]) => checks.map((check) => check.name);
  // The pushing client authenticated (no lookup by client_id), and nothing it pushes is a pushed request.
  const pushOnly = ['checkClient', 'openPushedRequest', 'knownPushedRequest', 'requirePushed'];
  expect(names(PUSH_CHECKS)).toEqual(names(AUTHORIZE_CHECKS).filter((name) => !pushOnly.includes(name)));
});

it("checks a device request (RFC 8628 §3.1) for the client's grant and the scope, and settles the scope", async () => {
  const device = async (fields: Partial<ClientDocument>, scope?: string) => {
    const known = await client(fields);
    const checked = await runChecks(DEVICE_CHECKS, scope === undefined ? {} : { scope }, { address: '127.0.0.1', client: known }, deps);
    if (checked.kind === 'refusal') return checked.title;
    return checked.kind === 'failed' ? checked.failure.error : checked.review.request.scope;
  };
  const grants: ClientDocument['grants'] = ['urn:ietf:params:oauth:grant-type:device_code'];
  expect(await device({ grants }, 'openid profile')).toEqual(['openid', 'profile']);
  expect(await device({ grants: ['authorization_code'] }, 'openid')).toBe('unauthorized_client');
  expect(await device({ grants }, 'openid everything')).toBe('invalid_scope');
});

it('refuses a request made of a request_uri and a request object at once', async () => {
  const { _id } = await client();
  const outcome = await outcomeOf(AUTHORIZE_CHECKS, valid(_id, { request: 'a.b.c', request_uri: 'https://client.example.com/r' }));
  expect(outcome).toBe('invalid_request: send request or request_uri, not both');
});

describe('response modes', () => {
  it('has a handler for every mode discovery names but `jwt` (which settles on one of them)', () => {
    expect(Object.keys(RESPONSE_MODE_HANDLERS).sort()).toEqual(RESPONSE_MODES.filter((mode) => mode !== 'jwt').sort());
  });

  const target = (responseMode: ResponseMode) => ({
    redirectUri: 'https://client.example.com/cb?kept=1',
    client: { _id: 'the-client', metadata: { authorization_signed_response_alg: 'ES256' } } as ClientDocument,
    responseMode,
  });

  const SIGNED = new URLSearchParams({ response: 'signed(the-client,ES256,{"code":"c","state":"s"})' }).toString();

  it.each([
    ['query', { kind: 'redirect', location: 'https://client.example.com/cb?kept=1&code=c&state=s&iss=https%3A%2F%2Fissuer.example' }],
    ['fragment', { kind: 'redirect', location: 'https://client.example.com/cb?kept=1#code=c&state=s&iss=https%3A%2F%2Fissuer.example' }],
    [
      'form_post',
      {
        kind: 'form_post',
        action: 'https://client.example.com/cb?kept=1',
        fields: { code: 'c', state: 's', iss: 'https://issuer.example' },
      },
    ],
    [
      'query.jwt',
      {
        kind: 'redirect',
        location: `https://client.example.com/cb?kept=1&${SIGNED}`,
      },
    ],
    [
      'fragment.jwt',
      {
        kind: 'redirect',
        location: `https://client.example.com/cb?kept=1#${SIGNED}`,
      },
    ],
    [
      'form_post.jwt',
      {
        kind: 'form_post',
        action: 'https://client.example.com/cb?kept=1',
        fields: { response: 'signed(the-client,ES256,{"code":"c","state":"s"})' },
      },
    ],
  ] as const)('%s carries the values (never an undefined one)', async (mode, expected) => {
    expect(await answer(target(mode), { code: 'c', state: 's', nonce: undefined }, context)).toEqual(expected);
  });
});

it('words a page refusal with its code only when given one', () => {
  expect(refusal('T', 'M')).toEqual({ kind: 'refusal', title: 'T', message: 'M' });
  expect(refusal('T', 'M', 'invalid_request_uri')).toEqual({ kind: 'refusal', title: 'T', message: 'M', error: 'invalid_request_uri' });
});
