// Issue 48, finding 2: client ids are public, so a budget counted against the client a request only
// names let anyone lock an application out of the token endpoint, PAR and device authorization.
// A client's budget counts only requests that authenticated as it; failures count against the client
// and the address together (and the address's own budget); request_uri fetches per client and address
// (test/oidc/request-uri.test.ts). Checked one at a time, and with 100 at once on one and two instances.
import request from 'supertest';
import type { Express } from 'express';
import { PushedRequestModel } from '../../src/oauth/authorize/pushed-requests.model';
import { DeviceAuthorizationModel } from '../../src/oauth/device/device.model';
import { TokenModel } from '../../src/oauth/tokens/tokens.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { REDIRECT_URI, registerClient } from '../helpers/oauth';

useTestDatabase();

// Small budgets so that the attack fits in a test: 40 requests per address, 10 failures per client
// and address, 60 authenticated requests per client.
const LIMITS = {
  RATE_LIMITS: 'on',
  TRUST_PROXY: 'true',
  RATE_LIMIT_TOKEN_PER_ADDRESS: '40',
  RATE_LIMIT_TOKEN_PER_CLIENT: '60',
  RATE_LIMIT_PAR_PER_ADDRESS: '40',
  RATE_LIMIT_PAR_PER_CLIENT: '60',
  RATE_LIMIT_DEVICE_AUTHORIZATION_PER_ADDRESS: '40',
  RATE_LIMIT_DEVICE_AUTHORIZATION_PER_CLIENT: '60',
  RATE_LIMIT_CLIENT_FAILURES_PER_ADDRESS: '10',
};

interface Endpoint {
  name: string;
  grants: string[];
  path: string;
  body: Record<string, string>;
  success: number;
  /** What a success writes, counted to show refusals write nothing. */
  written(clientId: string): Promise<number>;
}

const ENDPOINTS: Endpoint[] = [
  {
    name: 'the token endpoint',
    grants: ['client_credentials'],
    path: '/oauth/token',
    body: { grant_type: 'client_credentials' },
    success: 200,
    written: (clientId) => TokenModel.countDocuments({ clientId }),
  },
  {
    name: 'PAR',
    grants: ['authorization_code'],
    path: '/oauth/par',
    body: { response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'read' },
    success: 201,
    written: (clientId) => PushedRequestModel.countDocuments({ clientId }),
  },
  {
    name: 'device authorization',
    grants: ['urn:ietf:params:oauth:grant-type:device_code'],
    path: '/oauth/device_authorization',
    body: {},
    success: 200,
    written: (clientId) => DeviceAuthorizationModel.countDocuments({ clientId }),
  },
];

let addresses = 0;
/** An address nobody has used in this file. */
const newAddress = () => `198.51.${Math.floor(++addresses / 250)}.${addresses % 250}`;

function send(app: Express, endpoint: Endpoint, client: { client_id: string }, secret: string, address: string) {
  return request(app)
    .post(endpoint.path)
    .set('X-Forwarded-For', address)
    .type('form')
    .send({ ...endpoint.body, client_id: client.client_id, client_secret: secret });
}

describe.each(ENDPOINTS)('$name', (endpoint) => {
  it('keeps serving the client after strangers spent its id on wrong secrets from four addresses', async () => {
    const app = testApp(LIMITS);
    const client = await registerClient({ grants: endpoint.grants as never });
    const statuses: number[] = [];
    const attackers = [newAddress(), newAddress(), newAddress(), newAddress()];
    for (const address of attackers) {
      for (let i = 0; i < 15; i++) statuses.push((await send(app, endpoint, client, 'wrong-secret', address)).status);
    }
    // Ten failures per address (its failures as this client), then 429.
    expect(statuses.filter((status) => status === 401)).toHaveLength(40);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect(await endpoint.written(client.client_id)).toBe(0);
    // The application itself, from its own address: served.
    await send(app, endpoint, client, client.client_secret, newAddress()).expect(endpoint.success);
    // The attackers' addresses stay refused for this client.
    expect((await send(app, endpoint, client, 'wrong-secret', attackers[0])).status).toBe(429);
  });

  it("still counts the client's own requests: past its budget, 429 from every address", async () => {
    const app = testApp({
      ...LIMITS,
      RATE_LIMIT_TOKEN_PER_CLIENT: '3',
      RATE_LIMIT_PAR_PER_CLIENT: '3',
      RATE_LIMIT_DEVICE_AUTHORIZATION_PER_CLIENT: '3',
    });
    const client = await registerClient({ grants: endpoint.grants as never });
    for (let i = 0; i < 3; i++) await send(app, endpoint, client, client.client_secret, newAddress()).expect(endpoint.success);
    const refused = await send(app, endpoint, client, client.client_secret, newAddress()).expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await endpoint.written(client.client_id)).toBe(3);
  });

  it.each([
    ['one instance', 1],
    ['two instances', 2],
  ])(
    'holds under 100 wrong secrets at once on %s: at most the failure budget answered 401, the client served after',
    async (_name, count) => {
      const apps = Array.from({ length: count }, () => testApp(LIMITS));
      const client = await registerClient({ grants: endpoint.grants as never });
      const attacker = newAddress();
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => send(apps[i % count], endpoint, client, 'wrong-secret', attacker)),
      );
      const statuses = answers.map((res) => res.status);
      expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
      expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
      expect(await endpoint.written(client.client_id)).toBe(0);
      for (const app of apps) await send(app, endpoint, client, client.client_secret, newAddress()).expect(endpoint.success);
    },
  );
});
