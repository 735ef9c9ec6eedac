// The admin API's rules for agents (issue 53): token exchange rules, document hosts and the clients
// known by their documents; each list pages, each change is an event naming the operator's client,
// and a refused change writes nothing.
import request from 'supertest';
import { ActivityModel } from '../../src/account/activity.model';
import { DocumentClientModel, DocumentHostModel } from '../../src/oauth/clients/client-documents.model';
import { ExchangePolicyModel } from '../../src/oauth/exchange/exchange-policies.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { operatorToken, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp();
let token: string;
beforeAll(async () => {
  token = await operatorToken(app);
});
beforeEach(async () => {
  await Promise.all([
    ExchangePolicyModel.deleteMany({}).exec(),
    DocumentHostModel.deleteMany({}).exec(),
    DocumentClientModel.deleteMany({}).exec(),
  ]);
});

describe('/admin/api/exchange-policies', () => {
  it('sets, lists a page at a time, replaces and deletes rules, each an event', async () => {
    const client = await registerClient();
    for (const audience of ['https://a.example/api', 'https://b.example/api', 'https://c.example/api']) {
      await request(app)
        .put('/admin/api/exchange-policies')
        .auth(token, { type: 'bearer' })
        .send({ client_id: client.client_id, audience, scopes: ['orders:read'] })
        .expect(200);
    }
    const first = await request(app).get('/admin/api/exchange-policies?limit=2').auth(token, { type: 'bearer' }).expect(200);
    expect(first.body.policies.map((policy: { audience: string }) => policy.audience)).toEqual([
      'https://a.example/api',
      'https://b.example/api',
    ]);
    const second = await request(app)
      .get('/admin/api/exchange-policies')
      .query({ limit: 2, after: first.body.next })
      .auth(token, { type: 'bearer' })
      .expect(200);
    expect(second.body).toMatchObject({
      policies: [{ audience: 'https://c.example/api', token_type: 'access_token', subjects: 'own' }],
      next: null,
    });
    // The same pair again replaces its rule.
    await request(app)
      .put('/admin/api/exchange-policies')
      .auth(token, { type: 'bearer' })
      .send({ client_id: client.client_id, audience: 'https://a.example/api', scopes: ['x'], subjects: 'any' })
      .expect(200);
    expect(await ExchangePolicyModel.countDocuments().exec()).toBe(3);
    await request(app)
      .delete('/admin/api/exchange-policies')
      .query({ client_id: client.client_id, audience: 'https://a.example/api' })
      .auth(token, { type: 'bearer' })
      .expect(204);
    await request(app)
      .delete('/admin/api/exchange-policies')
      .query({ client_id: client.client_id, audience: 'https://a.example/api' })
      .auth(token, { type: 'bearer' })
      .expect(404);
    expect(await ActivityModel.countDocuments({ kind: 'exchange-policy-set' }).exec()).toBeGreaterThanOrEqual(4);
    expect(await ActivityModel.countDocuments({ kind: 'exchange-policy-deleted' }).exec()).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['an unknown client', { client_id: 'nobody', audience: 'https://a.example/api', scopes: ['x'] }, 'not a registered client'],
    ['an audience with a fragment', { audience: 'https://a.example/api#x', scopes: ['x'] }, 'fragment'],
    ['no scopes', { audience: 'https://a.example/api', scopes: [] }, 'scopes'],
    [
      'an id-jag rule without target_client_id',
      { audience: 'https://as.example', scopes: ['x'], token_type: 'id-jag' },
      'target_client_id',
    ],
    [
      'a target_client_id on an access_token rule',
      { audience: 'https://a.example/api', scopes: ['x'], target_client_id: 'y' },
      'id-jag rules only',
    ],
  ])('refuses %s, and writes nothing', async (_name, body, words) => {
    const client = await registerClient();
    const res = await request(app)
      .put('/admin/api/exchange-policies')
      .auth(token, { type: 'bearer' })
      .send({ client_id: client.client_id, ...body })
      .expect(400);
    expect(res.body.error_description).toContain(words);
    expect(await ExchangePolicyModel.countDocuments().exec()).toBe(0);
  });

  it('needs the admin scope', async () => {
    await request(app).get('/admin/api/exchange-policies').expect(401);
  });
});

describe('/admin/api/document-hosts and /admin/api/document-clients', () => {
  it('allows and blocks hosts, pages them, and forgets a rule', async () => {
    await request(app).put('/admin/api/document-hosts/mcp.example.com').auth(token, { type: 'bearer' }).send({ rule: 'allow' }).expect(200);
    await request(app)
      .put('/admin/api/document-hosts/evil.example:8443')
      .auth(token, { type: 'bearer' })
      .send({ rule: 'block' })
      .expect(200);
    const page = await request(app).get('/admin/api/document-hosts?limit=1').auth(token, { type: 'bearer' }).expect(200);
    expect(page.body.hosts).toEqual([expect.objectContaining({ host: 'evil.example:8443', rule: 'block' })]);
    expect(page.body.next).toBe('evil.example:8443');
    await request(app).delete('/admin/api/document-hosts/mcp.example.com').auth(token, { type: 'bearer' }).expect(204);
    await request(app).delete('/admin/api/document-hosts/mcp.example.com').auth(token, { type: 'bearer' }).expect(404);
    expect(await ActivityModel.countDocuments({ kind: 'document-host-ruled' }).exec()).toBeGreaterThanOrEqual(3);
  });

  it('refuses what is no host, and a rule other than allow or block', async () => {
    await request(app).put('/admin/api/document-hosts/a%2Fb').auth(token, { type: 'bearer' }).send({ rule: 'allow' }).expect(400);
    await request(app)
      .put('/admin/api/document-hosts/user@host.example')
      .auth(token, { type: 'bearer' })
      .send({ rule: 'allow' })
      .expect(400);
    await request(app).put('/admin/api/document-hosts/ok.example').auth(token, { type: 'bearer' }).send({ rule: 'maybe' }).expect(400);
    expect(await DocumentHostModel.countDocuments().exec()).toBe(0);
  });

  it('lists document clients with their host, sightings and grants, a page at a time', async () => {
    const at = new Date('2026-11-01T00:00:00Z');
    await DocumentClientModel.create([
      { _id: 'https://a.example/client.json', host: 'a.example', name: 'A', firstSeen: at, lastSeen: at },
      { _id: 'https://b.example/client.json', host: 'b.example', name: 'B', firstSeen: at, lastSeen: at },
    ]);
    const first = await request(app).get('/admin/api/document-clients?limit=1').auth(token, { type: 'bearer' }).expect(200);
    expect(first.body).toEqual({
      clients: [
        {
          client_id: 'https://a.example/client.json',
          host: 'a.example',
          name: 'A',
          first_seen: at.toISOString(),
          last_seen: at.toISOString(),
          grants: 0,
        },
      ],
      next: 'https://a.example/client.json',
    });
    const searched = await request(app)
      .get('/admin/api/document-clients')
      .query({ q: 'https://b.' })
      .auth(token, { type: 'bearer' })
      .expect(200);
    expect(searched.body.clients.map((client: { name: string }) => client.name)).toEqual(['B']);
  });
});
