// Agents on a person's behalf (issue 53, items 4 and 5), with oauth4webapi, a client library nobody
// here wrote, across two instances of this server:
// - RFC 8693 token exchange: a client exchanges a person's token for a narrower one for another
//   resource (audience, scope and lifetime never wider), with the actor in `act`, as the operator's
//   rule allows; every exchange is an event;
// - enterprise-managed authorization: one instance, as the company's identity provider, issues an
//   ID-JAG for the client's ID token; the other, as the MCP server's authorization server, takes it at
//   the JWT bearer grant (RFC 7523) for a person linked to that provider, once.
import * as oauth from 'oauth4webapi';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import request from 'supertest';
import { ActivityModel } from '../../src/account/activity.model';
import * as exchangeService from '../../src/oauth/exchange/exchange.service';
import * as resourcesService from '../../src/oauth/resources/resources.service';
import { ResourceModel } from '../../src/oauth/resources/resources.model';
import { TokenModel } from '../../src/oauth/tokens/tokens.model';
import { ExchangePolicyModel } from '../../src/oauth/exchange/exchange-policies.model';
import { JWT_BEARER_GRANT, TOKEN_EXCHANGE_GRANT, TOKEN_TYPE } from '../../src/oauth/protocol';
import * as linksDao from '../../src/upstream/upstream-links.dao';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { startLiveApp, type LiveApp } from '../helpers/live-app';
import { approve, pkcePair, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();

const GATEWAY = 'https://gateway.example.com/api';
const ORDERS = 'https://orders.example.com/api';
const insecure = { [oauth.allowInsecureRequests]: true };
/** RFC 8693 §2.2.1: an ID-JAG comes as token_type N_A, which the library takes when told. */
const nA = { ...insecure, recognizedTokenTypes: { n_a: () => undefined } };

let idp: LiveApp;
/** A second instance of the IdP (the same issuer, another process's address): a balancer's other half. */
let twin: LiveApp;
let mcpAs: LiveApp;
beforeAll(async () => {
  idp = await startLiveApp({ OAUTH_ACCESS_TOKEN_LIFETIME: '900' });
  twin = await startLiveApp({ PUBLIC_URL: idp.issuer, OAUTH_ACCESS_TOKEN_LIFETIME: '900' });
  mcpAs = await startLiveApp({
    UPSTREAM_PROVIDERS: JSON.stringify([
      { id: 'corp', name: 'Corp IdP', issuer: idp.issuer, client_id: 'mcp-as-at-corp', client_secret: 'unused-secret', trust_id_jag: true },
    ]),
  });
});
afterAll(async () => {
  await Promise.all([idp.close(), twin.close(), mcpAs.close()]);
});
beforeEach(async () => {
  await Promise.all([ResourceModel.deleteMany({}).exec(), ExchangePolicyModel.deleteMany({}).exec()]);
  await resourcesService.create({ publicUrl: idp.issuer }, { resource: GATEWAY, scopes: ['orders:read', 'orders:write'], format: 'jwt' });
  await resourcesService.create({ publicUrl: idp.issuer }, { resource: ORDERS, scopes: ['orders:read'], format: 'jwt' });
});

const discovered = async (issuer: string) =>
  oauth.processDiscoveryResponse(new URL(issuer), await oauth.discoveryRequest(new URL(issuer), insecure));

/** A person's tokens at `app` for a confidential client, by the code flow (scope and resource as given). */
async function personTokens(app: LiveApp, client: { client_id: string; client_secret: string }, extra: Record<string, string>) {
  const person = await createUser();
  const { agent } = await signedInAgent(app.app, person);
  const pkce = pkcePair();
  const location = await approve(agent, {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  const res = await tokenRequest(app, client, {
    grant_type: 'authorization_code',
    code: location.searchParams.get('code')!,
    redirect_uri: REDIRECT_URI,
    code_verifier: pkce.verifier,
  }).expect(200);
  return { person, tokens: res.body as { access_token: string; id_token?: string; expires_in: number } };
}

/** POST /oauth/token at `app` as `client` (client_secret_basic), with these form parameters. */
const tokenRequest = (app: LiveApp, client: { client_id: string; client_secret: string }, body: Record<string, string>) =>
  request(app.app).post('/oauth/token').auth(client.client_id, client.client_secret).type('form').send(body);

async function verifiedBy(app: LiveApp, token: string) {
  const jwks = createLocalJWKSet((await request(app.app).get('/oauth/jwks').expect(200)).body as JSONWebKeySet);
  return (await jwtVerify(token, jwks, { issuer: app.issuer })).payload;
}

describe('RFC 8693 token exchange', () => {
  async function agentClient() {
    const client = await registerClient({ grants: ['authorization_code', TOKEN_EXCHANGE_GRANT, 'client_credentials'] });
    await exchangeService.set({ client_id: client.client_id, audience: ORDERS, scopes: ['orders:read'] }, async () => true);
    return client;
  }

  it('gives a narrower token for another resource, with the actor in act, on the other instance', async () => {
    const client = await agentClient();
    const { person, tokens } = await personTokens(idp, client, { scope: 'orders:read orders:write', resource: GATEWAY });
    // The actor: the client's own token.
    const own = await tokenRequest(idp, client, { grant_type: 'client_credentials', resource: ORDERS, scope: 'orders:read' }).expect(200);
    // Sent to the other instance (the same issuer and database, as two instances behind a balancer).
    const as = { ...(await discovered(idp.issuer)), token_endpoint: `${twin.issuer}/oauth/token` };
    const response = await oauth.genericTokenEndpointRequest(
      as,
      { client_id: client.client_id },
      oauth.ClientSecretBasic(client.client_secret),
      TOKEN_EXCHANGE_GRANT,
      {
        subject_token: tokens.access_token,
        subject_token_type: TOKEN_TYPE.accessToken,
        actor_token: own.body.access_token,
        actor_token_type: TOKEN_TYPE.accessToken,
        resource: ORDERS,
      },
      insecure,
    );
    const exchanged = await oauth.processGenericTokenEndpointResponse(as, { client_id: client.client_id }, response);
    expect(exchanged.issued_token_type).toBe(TOKEN_TYPE.accessToken);
    expect(exchanged.scope).toBe('orders:read');
    expect(exchanged.refresh_token).toBeUndefined();
    expect(exchanged.expires_in).toBeLessThanOrEqual(tokens.expires_in);
    const claims = await verifiedBy(idp, exchanged.access_token);
    expect(claims).toMatchObject({ aud: ORDERS, sub: person.id, client_id: client.client_id, scope: 'orders:read' });
    expect(claims.act).toEqual({ sub: client.client_id, client_id: client.client_id });
    // Introspection says who acts.
    const introspection = await request(idp.app)
      .post('/oauth/introspect')
      .auth(client.client_id, client.client_secret)
      .type('form')
      .send({ token: exchanged.access_token })
      .expect(200);
    expect(introspection.body).toMatchObject({ active: true, aud: ORDERS, act: { sub: client.client_id } });
    const events = await ActivityModel.find({ userId: person.id, kind: 'token-exchanged' }).lean().exec();
    expect(events).toHaveLength(1);
    expect(events[0].detail).toContain(ORDERS);
  });

  it('never outlives the token it was exchanged for', async () => {
    const client = await agentClient();
    // The subject: a token for GATEWAY that lives 120 s; ORDERS gives 600 s.
    await ResourceModel.deleteOne({ _id: GATEWAY }).exec();
    await resourcesService.create(
      { publicUrl: idp.issuer },
      { resource: GATEWAY, scopes: ['orders:read'], format: 'jwt', access_token_lifetime: 120 },
    );
    const { tokens } = await personTokens(idp, client, { scope: 'orders:read', resource: GATEWAY });
    expect(tokens.expires_in).toBeLessThanOrEqual(120);
    const res = await tokenRequest(twin, client, {
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: tokens.access_token,
      subject_token_type: TOKEN_TYPE.accessToken,
      audience: ORDERS,
    }).expect(200);
    expect(res.body.expires_in).toBeLessThanOrEqual(120);
    expect(res.body.scope).toBe('orders:read');
  });

  it.each([
    ['no rule for the target', { resource: GATEWAY }, 400, 'invalid_target'],
    ['a scope beyond the rule', { resource: ORDERS, scope: 'orders:write' }, 400, 'invalid_scope'],
    ['no target', {}, 400, 'invalid_target'],
    ['an actor token without its type', { resource: ORDERS, actor_token: 'x' }, 400, 'invalid_request'],
    ['another subject token type', { resource: ORDERS, subject_token_type: TOKEN_TYPE.idToken }, 400, 'invalid_request'],
    ['a token that is no token here', { resource: ORDERS, subject_token: 'not-a-token' }, 400, 'invalid_grant'],
    ['an unknown requested type', { resource: ORDERS, requested_token_type: 'urn:x' }, 400, 'invalid_request'],
  ])('refuses %s, and issues and records nothing', async (_name, overrides, status, error) => {
    const client = await agentClient();
    const { person, tokens } = await personTokens(idp, client, { scope: 'orders:read', resource: GATEWAY });
    const before = await TokenModel.countDocuments({ userId: person.id }).exec();
    const res = await tokenRequest(idp, client, {
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: tokens.access_token,
      subject_token_type: TOKEN_TYPE.accessToken,
      ...overrides,
    }).expect(status);
    expect(res.body.error).toBe(error);
    expect(await TokenModel.countDocuments({ userId: person.id }).exec()).toBe(before);
    expect(await ActivityModel.countDocuments({ userId: person.id, kind: 'token-exchanged' }).exec()).toBe(0);
  });

  it("refuses another client's token under an `own` rule, takes it under `any`", async () => {
    const holder = await registerClient({ grants: ['authorization_code'] });
    const { tokens } = await personTokens(idp, holder, { scope: 'orders:read', resource: GATEWAY });
    const client = await agentClient();
    const exchange = () =>
      tokenRequest(idp, client, {
        grant_type: TOKEN_EXCHANGE_GRANT,
        subject_token: tokens.access_token,
        subject_token_type: TOKEN_TYPE.accessToken,
        resource: ORDERS,
      });
    expect((await exchange().expect(400)).body.error_description).toBe('subject_token was issued to another client');
    await exchangeService.set(
      { client_id: client.client_id, audience: ORDERS, scopes: ['orders:read'], subjects: 'any' },
      async () => true,
    );
    await exchange().expect(200);
  });

  it('refuses a client without the grant, and a revoked subject token', async () => {
    const plain = await registerClient({ grants: ['authorization_code'] });
    const { tokens } = await personTokens(idp, plain, { scope: 'orders:read', resource: GATEWAY });
    const send = (client: { client_id: string; client_secret: string }) =>
      tokenRequest(idp, client, {
        grant_type: TOKEN_EXCHANGE_GRANT,
        subject_token: tokens.access_token,
        subject_token_type: TOKEN_TYPE.accessToken,
        resource: ORDERS,
      });
    expect((await send(plain).expect(400)).body.error).toBe('unauthorized_client');
    const client = await agentClient();
    const own = await personTokens(idp, client, { scope: 'orders:read', resource: GATEWAY });
    await request(idp.app)
      .post('/oauth/revoke')
      .auth(client.client_id, client.client_secret)
      .type('form')
      .send({ token: own.tokens.access_token })
      .expect(200);
    const res = await tokenRequest(idp, client, {
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: own.tokens.access_token,
      subject_token_type: TOKEN_TYPE.accessToken,
      resource: ORDERS,
    }).expect(400);
    expect(res.body.error).toBe('invalid_grant');
  });
});

describe('enterprise-managed authorization (ID-JAG) across two instances', () => {
  /** The company's IdP (idp) vouches; the MCP server's authorization server (mcpAs) takes it. */
  async function setUp() {
    const atIdp = await registerClient({ grants: ['authorization_code', TOKEN_EXCHANGE_GRANT] });
    const atMcp = await registerClient({ grants: [JWT_BEARER_GRANT] });
    await exchangeService.set(
      {
        client_id: atIdp.client_id,
        audience: mcpAs.issuer,
        token_type: 'id-jag',
        scopes: ['orders:read'],
        target_client_id: atMcp.client_id,
      },
      async () => true,
    );
    const { person, tokens } = await personTokens(idp, atIdp, { scope: 'openid' });
    // The same person's account at the MCP server's side, linked to the IdP's account.
    const there = await createUser();
    await linksDao.insert({ provider: 'corp', subject: person.id, userId: there.id, linkedAt: new Date() });
    return { atIdp, atMcp, person, there, idToken: tokens.id_token! };
  }

  async function idJag(atIdp: { client_id: string; client_secret: string }, idToken: string, extra: Record<string, string> = {}) {
    const as = await discovered(idp.issuer);
    const response = await oauth.genericTokenEndpointRequest(
      as,
      { client_id: atIdp.client_id },
      oauth.ClientSecretBasic(atIdp.client_secret),
      TOKEN_EXCHANGE_GRANT,
      {
        subject_token: idToken,
        subject_token_type: TOKEN_TYPE.idToken,
        requested_token_type: TOKEN_TYPE.idJag,
        audience: mcpAs.issuer,
        resource: ORDERS,
        scope: 'orders:read',
        ...extra,
      },
      insecure,
    );
    return oauth.processGenericTokenEndpointResponse(as, { client_id: atIdp.client_id }, response, nA);
  }

  const bearerGrant = async (atMcp: { client_id: string; client_secret: string }, assertion: string) => {
    const as = await discovered(mcpAs.issuer);
    return oauth.genericTokenEndpointRequest(
      as,
      { client_id: atMcp.client_id },
      oauth.ClientSecretBasic(atMcp.client_secret),
      JWT_BEARER_GRANT,
      { assertion },
      insecure,
    );
  };

  it('issues an ID-JAG at the IdP and an access token for it at the other authorization server, once', async () => {
    const { atIdp, atMcp, there, idToken } = await setUp();
    const jag = await idJag(atIdp, idToken);
    expect(jag.issued_token_type).toBe(TOKEN_TYPE.idJag);
    expect(jag.token_type).toBe('n_a');
    expect(decodeProtectedHeader(jag.access_token).typ).toBe('oauth-id-jag+jwt');
    expect(decodeJwt(jag.access_token)).toMatchObject({
      iss: idp.issuer,
      aud: mcpAs.issuer,
      client_id: atMcp.client_id,
      resource: ORDERS,
      scope: 'orders:read',
    });
    const as = await discovered(mcpAs.issuer);
    const granted = await oauth.processGenericTokenEndpointResponse(
      as,
      { client_id: atMcp.client_id },
      await bearerGrant(atMcp, jag.access_token),
    );
    const claims = await verifiedBy(mcpAs, granted.access_token);
    expect(claims).toMatchObject({ aud: ORDERS, sub: there.id, client_id: atMcp.client_id, scope: 'orders:read' });
    expect(await ActivityModel.countDocuments({ userId: there.id, kind: 'assertion-accepted' }).exec()).toBe(1);
    // The same assertion again: refused.
    const again = await bearerGrant(atMcp, jag.access_token);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error_description: string }).error_description).toBe('The assertion was used already');
  });

  it('takes an ID-JAG once when 20 requests race with it on two instances', async () => {
    const { atIdp, atMcp, idToken } = await setUp();
    const jag = await idJag(atIdp, idToken);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request((i % 2 ? idp : mcpAs).app)
          .post('/oauth/token')
          .auth(atMcp.client_id, atMcp.client_secret)
          .type('form')
          .send({ grant_type: JWT_BEARER_GRANT, assertion: jag.access_token }),
      ),
    );
    // Only mcpAs trusts the IdP; of its ten, one succeeds.
    expect(results.filter((res) => res.status === 200)).toHaveLength(1);
  });

  it.each([
    ['for another client', 'client'],
    ['from an issuer not trusted', 'issuer'],
    ['for a person not linked here', 'person'],
  ])('refuses an ID-JAG %s', async (_name, what) => {
    const { atIdp, atMcp, person, idToken } = await setUp();
    const jag = await idJag(atIdp, idToken);
    if (what === 'person') await linksDao.removeById('corp', person.id);
    const other = await registerClient({ grants: [JWT_BEARER_GRANT] });
    const res = await request((what === 'issuer' ? idp : mcpAs).app)
      .post('/oauth/token')
      .auth((what === 'client' ? other : atMcp).client_id, (what === 'client' ? other : atMcp).client_secret)
      .type('form')
      .send({ grant_type: JWT_BEARER_GRANT, assertion: jag.access_token })
      .expect(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('refuses an ID-JAG for an ID token of another client, and without a rule', async () => {
    const { atIdp, idToken } = await setUp();
    const stranger = await registerClient({ grants: [TOKEN_EXCHANGE_GRANT] });
    // The person's ID token, presented by another client for an ID-JAG.
    const forJag = {
      grant_type: TOKEN_EXCHANGE_GRANT,
      subject_token: idToken,
      subject_token_type: TOKEN_TYPE.idToken,
      requested_token_type: TOKEN_TYPE.idJag,
      audience: mcpAs.issuer,
    };
    const asStranger = await tokenRequest(idp, stranger, forJag).expect(400);
    expect(asStranger.body.error).toBe('invalid_target');
    await exchangeService.set(
      { client_id: stranger.client_id, audience: mcpAs.issuer, token_type: 'id-jag', scopes: ['orders:read'], target_client_id: 'x' },
      async () => true,
    );
    const notTheirs = await tokenRequest(idp, stranger, forJag).expect(400);
    expect(notTheirs.body.error).toBe('invalid_grant');
    await expect(idJag(atIdp, idToken, { scope: 'orders:write' })).rejects.toThrow();
  });
});
