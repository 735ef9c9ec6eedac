// The database round trips of one token request, counted with the driver's command monitoring:
// docs/architecture.md walks POST /oauth/token (code + PKCE + openid) and promises at most six, with
// the rate limits off or on (the default), and a client_credentials token costs one write. The change
// signals the caches poll (at most twice a second, whatever the load) are not the request's, and are
// left out; the apps' clock stands still, so no cache read again after an interval of time (the
// signing keys every 30 s) lands in a slow run's count.
import request from 'supertest';
import { TokenModel } from '../../src/oauth/tokens/tokens.model';
import { testApp } from '../helpers/app';
import { useMonitoredTestDatabase } from '../helpers/db';
import { authorizationCode, clientSecretPost, codeExchange, passwordGrant, pkcePair, registerClient } from '../helpers/oauth';

const frozen = Date.now();
const clock = { now: () => frozen };
const app = testApp({}, { clock });
const limitedApp = testApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'true' }, { clock });
// Each exchange from an address of its own: its budget hits land in free slots at once (a slot an
// earlier exchange holds makes the limiter look again; common/rate-limit.ts).
let exchanges = 0;
const { commands } = useMonitoredTestDatabase();
async function exchange(through = app): Promise<string[]> {
  const client = await registerClient();
  const pkce = pkcePair('S256');
  const { code } = await authorizationCode(through, client, {
    scope: 'openid profile',
    nonce: 'n-0S6_WzA2Mj',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  });
  commands.length = 0;
  const res = await request(through)
    .post('/oauth/token')
    .set('X-Forwarded-For', `203.0.113.${++exchanges}`)
    .type('form')
    .send({ ...codeExchange(client, code), code_verifier: pkce.verifier })
    .expect(200);
  expect(res.body.id_token).toEqual(expect.any(String));
  return [...commands];
}

it('exchanges a code with PKCE and openid in at most six database round trips', async () => {
  // The first request of a process also loads the signing keys and sweeps expired records.
  await exchange();
  const seen = await exchange();
  expect(seen.length).toBeLessThanOrEqual(6);
  expect(seen).toContain('insert oauth_tokens');
  // The client is not read again: the authorization request read it, and it is kept.
  expect(seen.filter((command) => command === 'find oauth_clients')).toHaveLength(0);
});

it('exchanges a code in at most six round trips with the default settings: the rate limiter adds one', async () => {
  await exchange(limitedApp);
  const seen = await exchange(limitedApp);
  // The token budgets: their hits written into free slots, one command (src/common/rate-limit.ts).
  expect(seen.filter((command) => command.endsWith(' rate_limit_hits'))).toEqual(['insert rate_limit_hits']);
  expect(seen.length).toBeLessThanOrEqual(6);
});

it('issues a client_credentials token with one write and nothing else once the client is known', async () => {
  const client = await registerClient({ grants: ['client_credentials'] });
  const issue = async () => {
    commands.length = 0;
    await request(app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'client_credentials', ...clientSecretPost(client) })
      .expect(200);
    return [...commands];
  };
  // The first reads the client.
  expect(await issue()).toEqual(expect.arrayContaining(['find oauth_clients', 'insert oauth_tokens']));
  for (let i = 0; i < 3; i++) expect(await issue()).toEqual(['insert oauth_tokens']);
  // Written straight through the driver: what a client's token lacks is absent, not null.
  const stored = await TokenModel.findOne({ clientId: client.client_id }).lean();
  expect(stored).toEqual(expect.objectContaining({ scope: ['read'], accessTokenExpiresAt: expect.any(Date), issuedAt: expect.any(Date) }));
  for (const absent of ['userId', 'refreshTokenHash', 'refreshTokenExpiresAt', 'amr', 'claims', 'sid', 'authTime']) {
    expect(stored).not.toHaveProperty(absent);
  }
});

it('answers userinfo and introspection from memory once the token, its person and its client are known', async () => {
  const { client, tokens } = await passwordGrant(app, { scope: 'openid profile' });
  const calls = async () => {
    commands.length = 0;
    await request(app).get('/oauth/userinfo').set('Authorization', `Bearer ${tokens.access_token}`).expect(200);
    await request(app)
      .post('/oauth/introspect')
      .type('form')
      .send({ token: tokens.access_token, ...clientSecretPost(client) })
      .expect(200, /"active":true/);
    return [...commands];
  };
  await calls();
  for (let i = 0; i < 3; i++) expect(await calls()).toEqual([]);
});

it('issues 100 client_credentials tokens asked for at once, each stored and live, in fewer writes than tokens', async () => {
  const client = await registerClient({ grants: ['client_credentials'] });
  commands.length = 0;
  const answers = await Promise.all(
    Array.from({ length: 100 }, () =>
      request(app)
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: 'client_credentials', ...clientSecretPost(client) }),
    ),
  );
  const tokens = answers.map((res) => (res.body as { access_token: string }).access_token);
  expect(answers.every((res) => res.status === 200)).toBe(true);
  expect(new Set(tokens).size).toBe(100);
  const inserts = commands.filter((command) => command === 'insert oauth_tokens').length;
  expect(inserts).toBeGreaterThan(0);
  expect(inserts).toBeLessThan(100);
  expect(await TokenModel.countDocuments({ clientId: client.client_id })).toBe(100);
  for (const token of [tokens[0], tokens[99]]) {
    await request(app)
      .post('/oauth/introspect')
      .type('form')
      .send({ token, ...clientSecretPost(client) })
      .expect(200, /"active":true/);
  }
});
