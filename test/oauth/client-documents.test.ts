// OAuth Client ID Metadata Documents (issue 53, item 1): an https client_id with a path is fetched
// from a real https server on loopback, checked, kept as its Cache-Control says, and used for the
// whole code flow; each refusal the issue lists has its row here.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import request from 'supertest';
import { testApp, testConfig } from '../helpers/app';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { startDocumentHost, type DocumentHost } from '../helpers/document-host';
import { approve, pkcePair, signedInAgent, unescapeHtml } from '../helpers/oauth';
import { documentClients, documentSettings, documentSightings } from '../../src/oauth/clients/client-documents.service';
import { registeredClients } from '../../src/oauth/clients/clients.service';
import { DocumentClientModel, DocumentHostModel } from '../../src/oauth/clients/client-documents.model';
import * as documentsDao from '../../src/oauth/clients/client-documents.dao';

useTestDatabase();

let host: DocumentHost;
beforeAll(async () => {
  host = await startDocumentHost();
});
afterAll(() => host.close());
beforeEach(() => DocumentHostModel.deleteMany({}).exec());

const LOOPBACK_CALLBACK = 'http://127.0.0.1/callback';
let documents = 0;
/** A new document path each time, so no test sees another's kept copy. */
function document(overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const at = `/clients/${++documents}.json`;
  const clientId = `${host.origin}${at}`;
  host.publish(
    at,
    {
      client_id: clientId,
      client_name: 'Example MCP client',
      redirect_uris: [LOOPBACK_CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...overrides,
    },
    headers,
  );
  return { at, clientId };
}

const authorizeQuery = (clientId: string, challenge: string, redirectUri = 'http://127.0.0.1:4567/callback') => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: redirectUri,
  scope: 'openid profile',
  state: 'xyz',
  code_challenge: challenge,
  code_challenge_method: 'S256',
});

describe('a client known by its metadata document', () => {
  it('is advertised in discovery, and not when CLIENT_ID_DOCUMENTS=off', async () => {
    const on = await request(testApp()).get('/.well-known/openid-configuration').expect(200);
    expect(on.body.client_id_metadata_document_supported).toBe(true);
    const off = await request(testApp({ CLIENT_ID_DOCUMENTS: 'off' }))
      .get('/.well-known/oauth-authorization-server')
      .expect(200);
    expect(off.body.client_id_metadata_document_supported).toBe(false);
  });

  it('signs a person in through the code flow with PKCE, and is listed once it got a token', async () => {
    const { clientId } = document();
    const app = testApp();
    const { agent } = await signedInAgent(app);
    const pkce = pkcePair();
    const consent = await agent.get('/oauth/authorize').query(authorizeQuery(clientId, pkce.challenge)).expect(200);
    const page = unescapeHtml(consent.text);
    expect(page).toContain('Example MCP client');
    expect(page).toContain(`describes itself at <strong>${new URL(clientId).host}</strong>`);
    expect(page).toContain('Your answer goes to <strong>127.0.0.1:4567</strong>');
    // Every redirect is loopback: the warning.
    expect(page).toContain('any program here could claim to be it');
    const location = await approve(agent, authorizeQuery(clientId, pkce.challenge));
    const code = location.searchParams.get('code')!;
    const token = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:4567/callback',
        code_verifier: pkce.verifier,
      })
      .expect(200);
    expect(token.body.refresh_token).toEqual(expect.any(String));
    const seen = await DocumentClientModel.findById(clientId).lean().exec();
    expect(seen).toMatchObject({ host: new URL(clientId).host, name: 'Example MCP client' });
  });

  it('authenticates a private_key_jwt document client by the keys in its document', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'doc-key', alg: 'ES256', use: 'sig' };
    const { clientId } = document({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [jwk] },
      redirect_uris: ['https://app.example.com/cb'],
    });
    const app = testApp();
    const { agent } = await signedInAgent(app);
    const pkce = pkcePair();
    const location = await approve(agent, authorizeQuery(clientId, pkce.challenge, 'https://app.example.com/cb'));
    const issuer = (await request(app).get('/.well-known/openid-configuration').expect(200)).body.issuer as string;
    const signed = (key: CryptoKey) =>
      new SignJWT({ iss: clientId, sub: clientId, aud: issuer, jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'doc-key' })
        .setIssuedAt()
        .setExpirationTime('2m')
        .sign(key);
    const exchange = async (key: CryptoKey) =>
      request(app)
        .post('/oauth/token')
        .type('form')
        .send({
          grant_type: 'authorization_code',
          code: location.searchParams.get('code')!,
          redirect_uri: 'https://app.example.com/cb',
          code_verifier: pkce.verifier,
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: await signed(key),
        });
    // Another key than the document's: refused, and the code is not spent.
    const stranger = (await generateKeyPair('ES256')).privateKey;
    expect((await exchange(stranger)).body.error).toBe('invalid_client');
    const res = await exchange(privateKey);
    expect(res.status).toBe(200);
    expect(res.body.access_token).toEqual(expect.any(String));
  });

  it('shows no loopback warning when the document has an https redirect', async () => {
    const { clientId } = document({ redirect_uris: ['https://app.example.com/cb', LOOPBACK_CALLBACK] });
    const { agent } = await signedInAgent(testApp());
    const consent = await agent
      .get('/oauth/authorize')
      .query(authorizeQuery(clientId, pkcePair().challenge, 'https://app.example.com/cb'))
      .expect(200);
    expect(consent.text).not.toContain('any program here could claim to be it');
    expect(consent.text).toContain('Your answer goes to <strong>app.example.com</strong>');
  });

  it.each([
    ['a client_id other than its URL', { client_id: 'https://elsewhere.example/client.json' }, 'client_id is not its own URL'],
    ['a shared-secret method', { token_endpoint_auth_method: 'client_secret_basic' }, 'shares no secret'],
    ['a client_secret', { client_secret: 'shh' }, 'holds no client_secret'],
    ['no client_name', { client_name: undefined }, 'must have a client_name'],
    ['no redirect_uris', { redirect_uris: undefined }, 'must list its redirect_uris'],
    ['a redirect no registration may have', { redirect_uris: ['javascript:alert(1)'] }, 'redirect_uris'],
    ['private_key_jwt without keys', { token_endpoint_auth_method: 'private_key_jwt' }, 'private_key_jwt needs jwks or jwks_uri'],
    ['a grant a document client may not use', { grant_types: ['client_credentials'] }, 'may use only authorization_code, refresh_token'],
  ])('refuses a document with %s, naming why (outside production)', async (_name, overrides, reason) => {
    const { clientId } = document(overrides);
    const { agent } = await signedInAgent(testApp());
    const res = await agent.get('/oauth/authorize').query(authorizeQuery(clientId, pkcePair().challenge)).expect(400);
    expect(res.text).toContain('Unknown application');
    expect(unescapeHtml(res.text)).toContain(reason);
  });

  it('refuses a redirect_uri the document does not list', async () => {
    const { clientId } = document();
    const { agent } = await signedInAgent(testApp());
    const res = await agent
      .get('/oauth/authorize')
      .query(authorizeQuery(clientId, pkcePair().challenge, 'https://attacker.example/cb'))
      .expect(400);
    expect(res.header.location).toBeUndefined();
  });

  it('refuses a public document client without PKCE', async () => {
    const { clientId } = document();
    const { agent } = await signedInAgent(testApp());
    const res = await agent
      .get('/oauth/authorize')
      .query({ response_type: 'code', client_id: clientId, redirect_uri: LOOPBACK_CALLBACK, scope: 'openid' })
      .expect(302);
    expect(new URL(res.headers.location).searchParams.get('error')).toBe('invalid_request');
  });

  it('answers invalid_client at the token endpoint with the reason', async () => {
    const { clientId } = document({ client_id: 'https://elsewhere.example/x' });
    const res = await request(testApp())
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'authorization_code', code: 'x', client_id: clientId, code_verifier: 'v'.repeat(43) })
      .expect(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.body.error_description).toContain('client_id is not its own URL');
  });
});

describe('fetching documents', () => {
  const registry = (overrides: Record<string, string> = {}, clock = movableClock()) =>
    documentClients(registeredClients, documentSettings(testConfig(overrides)), clock);

  it('refuses a document over 5 kB, one that answers too slowly, a redirect and an error status', async () => {
    const big = document({ client_name: 'x'.repeat(6000) });
    // Never answers: the fetch gives up at CLIENT_ID_DOCUMENT_TIMEOUT_MS (the host drops the connection when it closes).
    const slow = host.handle('/slow.json', () => undefined);
    const moved = host.handle('/moved.json', (_req, res) => res.writeHead(302, { Location: `${host.origin}/clients/1.json` }).end());
    const failing = host.handle('/failing.json', (_req, res) => res.writeHead(500).end());
    const clients = registry({ CLIENT_ID_DOCUMENT_TIMEOUT_MS: '300' });
    for (const clientId of [big.clientId, slow, moved, failing]) {
      const reasons: string[] = [];
      expect(await clients.find(clientId, (why) => reasons.push(why))).toBeNull();
      expect(reasons[0]).toMatch(/could not be fetched/);
    }
  });

  it('in production, never fetches from a loopback or private address', async () => {
    const { clientId, at } = document();
    const before = host.hits(at);
    const reasons: string[] = [];
    const clients = documentClients(registeredClients, { mode: 'any', timeoutMs: 1000, allowPrivate: false }, movableClock());
    expect(await clients.find(clientId, (why) => reasons.push(why))).toBeNull();
    expect(reasons[0]).toContain('a private address');
    expect(host.hits(at)).toBe(before);
    // A production configuration says so too.
    expect(documentSettings(testConfig({ NODE_ENV: 'production' })).allowPrivate).toBe(false);
  });

  it('fetches once for 100 requests at once, and keeps the document as its max-age says', async () => {
    const { clientId, at } = document({}, { 'Cache-Control': 'max-age=60' });
    const clock = movableClock();
    const clients = registry({}, clock);
    const found = await Promise.all(Array.from({ length: 100 }, () => clients.find(clientId)));
    expect(found.every((client) => client?.name === 'Example MCP client')).toBe(true);
    expect(host.hits(at)).toBe(1);
    clock.move(59_000);
    await clients.find(clientId);
    expect(host.hits(at)).toBe(1);
    clock.move(2_000);
    await clients.find(clientId);
    expect(host.hits(at)).toBe(2);
  });

  it('fetches at most 16 documents at once per instance, refusing the 17th meanwhile', async () => {
    const held: (() => void)[] = [];
    // Resolves when `count` requests have reached the host: the test waits for that event, not for time.
    const waiters: { count: number; resolve: () => void }[] = [];
    const arrived = (count: number) =>
      held.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
    const ids = Array.from({ length: 17 }, (_, i) => {
      const at = `/held-${i}.json`;
      const clientId = `${host.origin}${at}`;
      host.handle(at, (_req, res) => {
        held.push(() =>
          res
            .writeHead(200, { 'Content-Type': 'application/json' })
            .end(JSON.stringify({ client_id: clientId, client_name: `Held ${i}`, redirect_uris: [LOOPBACK_CALLBACK] })),
        );
        waiters.filter((waiter) => held.length >= waiter.count).forEach((waiter) => waiter.resolve());
      });
      return clientId;
    });
    const clients = registry();
    const first = ids.slice(0, 16).map((id) => clients.find(id));
    // Every one of the 16 has reached the host before the 17th is asked for.
    await arrived(16);
    expect(held).toHaveLength(16);
    const reasons: string[] = [];
    expect(await clients.find(ids[16], (why) => reasons.push(why))).toBeNull();
    expect(reasons).toEqual(['too many metadata documents are being fetched: try again shortly']);
    held.forEach((release) => release());
    expect((await Promise.all(first)).every((client) => client !== null)).toBe(true);
    // Once they are in, the 17th is fetched.
    const late = clients.find(ids[16]);
    await arrived(17);
    held[16]();
    expect((await late)?.name).toBe('Held 16');
  });

  it('records a document client at its token at most once an hour per instance', async () => {
    const { clientId } = document();
    const clock = movableClock();
    const sighted = documentSightings(clock);
    const client = (await registry({}, clock).find(clientId))!;
    await sighted(client);
    const first = (await DocumentClientModel.findById(clientId).lean().exec())!;
    clock.move(30 * 60_000);
    await sighted(client);
    expect((await DocumentClientModel.findById(clientId).lean().exec())!.lastSeen).toEqual(first.lastSeen);
    clock.move(31 * 60_000);
    await sighted(client);
    const later = (await DocumentClientModel.findById(clientId).lean().exec())!;
    expect(later.lastSeen.getTime()).toBeGreaterThan(first.lastSeen.getTime());
    expect(later.firstSeen).toEqual(first.firstSeen);
  });

  it('keeps a document a day at most, whatever its max-age says', async () => {
    const { clientId, at } = document({}, { 'Cache-Control': 'max-age=31536000' });
    const clock = movableClock();
    const clients = registry({}, clock);
    await clients.find(clientId);
    clock.move(24 * 3600_000 - 60_000);
    await clients.find(clientId);
    expect(host.hits(at)).toBe(1);
    clock.move(120_000);
    await clients.find(clientId);
    expect(host.hits(at)).toBe(2);
  });

  it('fetches a no-store document each time, and keeps no error', async () => {
    const { clientId, at } = document({}, { 'Cache-Control': 'no-store' });
    const clients = registry();
    await clients.find(clientId);
    await clients.find(clientId);
    expect(host.hits(at)).toBe(2);
    let fail = true;
    const flakyId = `${host.origin}/flaky.json`;
    host.handle('/flaky.json', (_req, res) => {
      if (fail) res.writeHead(503).end();
      else
        res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ client_id: flakyId, client_name: 'Back', redirect_uris: [LOOPBACK_CALLBACK] }));
    });
    expect(await clients.find(flakyId)).toBeNull();
    fail = false;
    expect((await clients.find(flakyId))?.name).toBe('Back');
  });

  it("keeps to the operator's host rules, and forgets kept documents when a rule changes", async () => {
    const { clientId } = document();
    const hostName = new URL(clientId).host;
    const clients = registry();
    expect(await clients.find(clientId)).not.toBeNull();
    await documentsDao.setRule(hostName, 'block', new Date());
    const reasons: string[] = [];
    expect(await clients.find(clientId, (why) => reasons.push(why))).toBeNull();
    expect(reasons[0]).toBe(`this server takes no metadata documents from ${hostName}`);
    await documentsDao.deleteRule(hostName);
    const allowedOnly = registry({ CLIENT_ID_DOCUMENTS: 'allowed' });
    expect(await allowedOnly.find(clientId)).toBeNull();
    await documentsDao.setRule(hostName, 'allow', new Date());
    expect(await allowedOnly.find(clientId)).not.toBeNull();
    expect(await registry({ CLIENT_ID_DOCUMENTS: 'off' }).find(clientId)).toBeNull();
  });

  it('takes only an https address with a path as a document', async () => {
    const clients = registry();
    for (const id of [`${host.origin}/`, `${host.origin}/a/../b.json`, `${host.origin}/x#f`, 'http://127.0.0.1/client.json']) {
      const reasons: string[] = [];
      expect(await clients.find(id, (why) => reasons.push(why))).toBeNull();
      expect(reasons).toEqual([]);
    }
  });
});
