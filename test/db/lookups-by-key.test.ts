// Every lookup a person or an application triggers is by `_id` (issue 54; docs/decisions.md, "Lookups
// by key"): FerretDB 1.x answers only that filter without reading the whole collection, so any other
// grows with the data (test/db/keyed-filters.test.ts holds the engine to the rule). Each way in, each
// grant and each use of a token runs here with the default settings (rate limits on), and every
// statement it sends is read: its filter must be `_id` alone, but for the sweeps of collections that a
// few minutes of traffic fill (codes live ten minutes, budget hits fifteen) and for the collections of
// a handful of records whatever the data (the signing keys, the catalogue), named below. The lists a
// person or an operator pages through are test/db/list-indexes.test.ts's.
import request from 'supertest';
import { DEVICE_CODE_GRANT, ENDPOINTS } from '../../src/oauth/protocol';
import { pathOf, postForm } from '../helpers/account-pages';
import { movableClock } from '../helpers/clock';
import { isKeyed, useMonitoredTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { json, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { eventually } from '../helpers/polling';
import { useWaysIn, WAYS_IN_BASE } from '../helpers/ways-in';
import { enrolTotp, giveCode, passkeyAssertion, passkeyOf, passwordStep, totpCode } from '../helpers/factors';
import {
  approve,
  basicAuth,
  clientSecretPost,
  codeExchange,
  csrfFrom,
  REDIRECT_URI,
  registerClient,
  signedInAgent,
} from '../helpers/oauth';

const { shapes } = useMonitoredTestDatabase();

/** Sweeps by expiry of collections whose size is a few minutes' traffic, not the data: once a minute per instance. */
const TRAFFIC_SWEEPS = [
  'oauth_codes',
  'interactions',
  'rate_limit_hits',
  'oauth_device_authorizations',
  'oauth_device_user_codes',
  'oauth_pushed_requests',
  'oauth_dpop_proofs',
  'oauth_used_jwts',
  'webauthn_challenges',
  'account_links',
].map((collection) => `delete ${collection} by expiresAt.$lte`);
/**
 * Reads of a collection whose size is a few minutes' traffic: a rate-limited request that finds the
 * slot it picked at random already held reads its key's slots (common/rate-limit.ts), by chance.
 */
const TRAFFIC_READS = ['find rate_limit_hits by key.$in'];
/** Collections of a handful of records whatever the data: the signing keys, the sample catalogue. */
const SMALL = /^(find|update|delete) (oidc_signing_keys|products|categories) by /;
/**
 * Left as queries by person (docs/decisions.md, "Lookups by key"): what ends when an account's
 * password changes or it goes (its consents, its unused codes: once per such change).
 */
const LEFT = ['delete oauth_grants by userId', 'delete oauth_codes by userId'];

/** The statements `work` sent whose filter is not `_id` alone, but for the sweeps and small collections above. */
async function unkeyedIn(work: () => Promise<unknown>): Promise<string[]> {
  shapes.length = 0;
  await work();
  const exempt = (shape: string) =>
    TRAFFIC_SWEEPS.includes(shape) || TRAFFIC_READS.includes(shape) || SMALL.test(shape) || LEFT.includes(shape);
  return [...new Set(shapes.filter((shape) => !isKeyed(shape) && !exempt(shape)))];
}

const clock = movableClock();
const ways = useWaysIn(clock, { RATE_LIMITS: 'on', TRUST_PROXY: 'true' });
let next = 0;

/** Each journey from an address of its own, as different people's are. */
const from = <T extends { set(name: string, value: string): T }>(agent: T) => agent.set('X-Forwarded-For', `198.51.100.${++next % 250}`);
/** Posts the sign-out form of a page the agent read (reading the page is not the sign-out's). */
const signOutFrom = (agent: ReturnType<typeof request.agent>, page: string) =>
  agent
    .post('/logout')
    .type('form')
    .send({ _csrf: csrfFrom(page) })
    .expect(303);
const GRANTS = ['authorization_code', 'refresh_token', 'password', 'client_credentials', DEVICE_CODE_GRANT] as const;

describe('people are found by key', () => {
  it('signs up at POST /users and signs in at POST /auth, refreshing and failing, by _id alone', async () => {
    const email = `keyed-${++next}@example.com`;
    expect(await unkeyedIn(() => request(ways.app).post('/users').send({ email, password: 'secret-1' }).expect(201))).toEqual([]);
    let pair: { accessToken: string; refreshToken: string } | undefined;
    expect(
      await unkeyedIn(
        async () => (pair = (await from(request(ways.app).post('/auth')).send({ email, password: 'secret-1' }).expect(201)).body),
      ),
    ).toEqual([]);
    expect(
      await unkeyedIn(() =>
        request(ways.app)
          .post('/auth/refresh-token')
          .set('Authorization', `Bearer ${pair!.accessToken}`)
          .send({ refreshToken: pair!.refreshToken })
          .expect(201),
      ),
    ).toEqual([]);
    expect(await unkeyedIn(() => from(request(ways.app).post('/auth')).send({ email, password: 'wrong-password' }).expect(400))).toEqual(
      [],
    );
    expect(
      await unkeyedIn(() => from(request(ways.app).post('/auth')).send({ email: 'nobody@example.com', password: 'x' }).expect(400)),
    ).toEqual([]);
    expect(await unkeyedIn(() => request(ways.app).post('/users').send({ email, password: 'secret-1' }).expect(400))).toEqual([]);
  });

  it('reads people the same way for a wrong password and for an email nobody has, so the time tells them apart by nothing', async () => {
    const user = await createUser();
    const peopleReadBy = async (email: string) => {
      shapes.length = 0;
      await from(request(ways.app).post('/auth')).send({ email, password: 'wrong-password' }).expect(400);
      return shapes.filter((shape) => /^find (users|user_keys) /.test(shape));
    };
    const wrongPassword = await peopleReadBy(user.email);
    expect(wrongPassword).toEqual(['find user_keys by _id', 'find users by _id']);
    expect(await peopleReadBy(`nobody-${++next}@example.com`)).toEqual(wrongPassword);
  });

  it('signs in at /login with a password, and with an authenticator app, by _id alone', async () => {
    const person = await createUser();
    expect(await unkeyedIn(() => passwordStep(ways.app, person, from(request.agent(ways.app))))).toEqual([]);
    const other = await createUser();
    const { agent: first } = await passwordStep(ways.app, other);
    const { key } = await enrolTotp(first, clock.now());
    expect(
      await unkeyedIn(async () => {
        const { agent } = await passwordStep(ways.app, other, from(request.agent(ways.app)));
        await giveCode(agent, totpCode(key, clock.now() + 30_000));
      }),
    ).toEqual([]);
  });

  it('signs in with a passkey alone, with GitHub and with an OpenID provider, by _id alone', async () => {
    const person = await createUser();
    const passkey = await passkeyOf(person.id);
    expect(
      await unkeyedIn(async () => {
        const agent = from(request.agent(ways.app));
        const page = await agent.get('/login?prompt=login').expect(200);
        const _csrf = csrfFrom(page.text);
        const options = await agent.post('/login/passkey/options').send({ _csrf }).expect(200);
        await agent
          .post('/login/passkey')
          .send({ _csrf, response: passkeyAssertion(passkey, options.body.challenge, WAYS_IN_BASE) })
          .expect(200);
      }),
    ).toEqual([]);
    for (const time of ['first', 'again']) {
      if (time === 'first')
        ways.githubAccount = { ...ways.githubAccount, id: 7000 + next, login: `octo${next}`, email: `octo-keyed-${next}@example.com` };
      expect(
        await unkeyedIn(async () => {
          const agent = from(request.agent(ways.app));
          const start = await agent.get('/auth/github').expect(302);
          await agent
            .get('/auth/github')
            .query({ code: 'good-code', state: new URL(start.headers.location).searchParams.get('state') })
            .expect(302);
        }),
      ).toEqual([]);
    }
    ways.provider.account = { sub: `acme-keyed-${++next}`, email: `acme-keyed-${next}@example.com`, email_verified: true };
    for (let time = 0; time < 2; time++) {
      expect(
        await unkeyedIn(async () => {
          const agent = from(request.agent(ways.app));
          const start = await agent.get('/auth/upstream/acme').expect(302);
          const callback = new URL(await ways.provider.authorize(start.headers.location));
          await agent.get(callback.pathname + callback.search).expect(302);
        }),
      ).toEqual([]);
    }
  });

  it('mails a reset link and sets a new password through it, by _id alone', async () => {
    const person = await createUser();
    expect(
      await unkeyedIn(() => postForm(from(request.agent(ways.app)), '/forgot-password', '/forgot-password', { email: person.email })),
    ).toEqual([]);
    const [mail] = await ways.sink.mailTo(person.email, 1);
    expect(
      await unkeyedIn(async () => {
        const agent = from(request.agent(ways.app));
        const form = await agent.get(pathOf(mail.link)).expect(200);
        await agent
          .post('/reset-password')
          .type('form')
          .send({ _csrf: csrfFrom(form.text), token: new URL(mail.link!).searchParams.get('token'), password: 'another-long-password-2' })
          .expect(303);
      }),
    ).toEqual([]);
  });

  it('answers the catalogue by HTTP Basic, and signs out, by _id alone', async () => {
    const person = await createUser();
    expect(
      await unkeyedIn(() =>
        request(ways.app).get('/api/v1/products').set('Authorization', basicAuth(person.email, person.password)).expect(200),
      ),
    ).toEqual([]);
    const { agent } = await signedInAgent(ways.app, person);
    const home = await agent.get('/home').expect(200);
    expect(await unkeyedIn(() => signOutFrom(agent, home.text))).toEqual([]);
  });
});

describe('applications find what they hold by key', () => {
  async function connectedClient() {
    const client = await registerClient({ grants: [...GRANTS] });
    const person = await createUser();
    const { agent } = await signedInAgent(ways.app, person);
    const query = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'openid read', state: 's' };
    return { client, person, agent, query };
  }

  it('authorizes, exchanges the code, refreshes, and authorizes again with the consent remembered, by _id alone', async () => {
    const { client, agent, query } = await connectedClient();
    let code = '';
    expect(await unkeyedIn(async () => (code = (await approve(agent, query)).searchParams.get('code')!))).toEqual([]);
    let tokens: { access_token: string; refresh_token: string } | undefined;
    expect(
      await unkeyedIn(
        async () =>
          (tokens = (await from(request(ways.app).post('/oauth/token')).type('form').send(codeExchange(client, code)).expect(200)).body),
      ),
    ).toEqual([]);
    for (let time = 0; time < 2; time++) {
      expect(
        await unkeyedIn(
          async () =>
            (tokens = (
              await from(request(ways.app).post('/oauth/token'))
                .type('form')
                .send({ grant_type: 'refresh_token', refresh_token: tokens!.refresh_token, ...clientSecretPost(client) })
                .expect(200)
            ).body),
        ),
      ).toEqual([]);
    }
    expect(await unkeyedIn(() => agent.get('/oauth/authorize').query(query).expect(302))).toEqual([]);
    // A used code presented again revokes what it issued: its family, by key.
    expect(
      await unkeyedIn(() => from(request(ways.app).post('/oauth/token')).type('form').send(codeExchange(client, code)).expect(400)),
    ).toEqual([]);
  });

  it('issues by the password grant, client credentials and the device flow, by _id alone', async () => {
    const { client, person, agent } = await connectedClient();
    const post = (fields: Record<string, string>) =>
      from(request(ways.app).post('/oauth/token'))
        .type('form')
        .send({ ...clientSecretPost(client), ...fields });
    expect(await unkeyedIn(() => post({ grant_type: 'password', username: person.email, password: person.password }).expect(200))).toEqual(
      [],
    );
    expect(await unkeyedIn(() => post({ grant_type: 'client_credentials' }).expect(200))).toEqual([]);
    let started: { device_code: string; user_code: string } | undefined;
    expect(
      await unkeyedIn(
        async () =>
          (started = (
            await from(request(ways.app).post(ENDPOINTS.deviceAuthorization))
              .type('form')
              .send({ ...clientSecretPost(client), scope: 'read' })
              .expect(200)
          ).body),
      ),
    ).toEqual([]);
    expect(
      await unkeyedIn(async () => {
        const form = await agent.get('/device').expect(200);
        const consent = await agent
          .post('/device')
          .type('form')
          .send({ _csrf: csrfFrom(form.text), user_code: started!.user_code })
          .expect(200);
        await agent
          .post('/device/decision')
          .type('form')
          .send({ _csrf: csrfFrom(consent.text), user_code: started!.user_code, decision: 'approve' })
          .expect(200);
      }),
    ).toEqual([]);
    expect(await unkeyedIn(() => post({ grant_type: DEVICE_CODE_GRANT, device_code: started!.device_code }).expect(200))).toEqual([]);
  });

  it('answers userinfo, the APIs, introspection and revocation, by _id alone', async () => {
    const { client, person } = await connectedClient();
    const tokens = (
      await request(ways.app)
        .post('/oauth/token')
        .type('form')
        .send({
          grant_type: 'password',
          username: person.email,
          password: person.password,
          scope: 'openid read',
          ...clientSecretPost(client),
        })
        .expect(200)
    ).body as { access_token: string; refresh_token: string };
    const bearer = `Bearer ${tokens.access_token}`;
    expect(await unkeyedIn(() => request(ways.app).get('/oauth/userinfo').set('Authorization', bearer).expect(200))).toEqual([]);
    expect(await unkeyedIn(() => request(ways.app).get('/api/user').set('Authorization', bearer).expect(200))).toEqual([]);
    for (const token of [tokens.access_token, tokens.refresh_token, 'made-up', 'made.up']) {
      expect(
        await unkeyedIn(() =>
          request(ways.app)
            .post('/oauth/introspect')
            .set('Authorization', basicAuth(client.client_id, client.client_secret))
            .type('form')
            .send({ token })
            .expect(200),
        ),
      ).toEqual([]);
    }
    expect(
      await unkeyedIn(() =>
        request(ways.app)
          .post('/oauth/revoke')
          .type('form')
          .send({ token: tokens.refresh_token, ...clientSecretPost(client) })
          .expect(200),
      ),
    ).toEqual([]);
    // The family went with it: the access token is dead too.
    await request(ways.app).get('/api/user').set('Authorization', bearer).expect(401);
    expect(
      await unkeyedIn(() =>
        request(ways.app)
          .post('/oauth/token')
          .type('form')
          .send({ grant_type: 'refresh_token', refresh_token: 'made.up', ...clientSecretPost(client) })
          .expect(400),
      ),
    ).toEqual([]);
  });

  it('revokes a connected application from /home by _id alone: its tokens are dead at once', async () => {
    const { client, agent, query } = await connectedClient();
    const code = (await approve(agent, query)).searchParams.get('code')!;
    const tokens = (await request(ways.app).post('/oauth/token').type('form').send(codeExchange(client, code)).expect(200)).body as {
      access_token: string;
    };
    const home = await agent.get('/home').expect(200);
    expect(
      await unkeyedIn(() =>
        agent
          .post(`/home/applications/${client.client_id}/revoke`)
          .type('form')
          .send({ _csrf: csrfFrom(home.text) })
          .expect(303),
      ),
    ).toEqual(['delete oauth_codes by clientId,userId']);
    await request(ways.app).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`).expect(401);
  });
});

describe('back-channel logout finds what it tells by key', () => {
  let rp: FakeUpstream;
  beforeAll(async () => {
    rp = await startFakeUpstream((_req, res) => json(res, 200, {}));
  });
  afterAll(() => rp.close());

  it('remembers the session at the grant and takes it at sign-out and at a new password, by _id alone', async () => {
    const person = await createUser();
    const login = await from(request(ways.app).post('/auth')).send({ email: person.email, password: person.password }).expect(201);
    const registered = await request(ways.app)
      .post(ENDPOINTS.registration)
      .set('Authorization', `Bearer ${login.body.accessToken}`)
      .send({ redirect_uris: [REDIRECT_URI], backchannel_logout_uri: `${rp.url}/bc` })
      .expect(201);
    const query = { response_type: 'code', client_id: registered.body.client_id, redirect_uri: REDIRECT_URI, scope: 'openid', state: 's' };
    const { agent } = await signedInAgent(ways.app, person);
    expect(await unkeyedIn(() => approve(agent, query))).toEqual([]);
    const home = await agent.get('/home').expect(200);
    expect(await unkeyedIn(() => signOutFrom(agent, home.text))).toEqual([]);
    await eventually('the sign-out logout token', () => rp.requests.length === 1);
    // Signed in again: the consent is remembered, so the code comes at once from the new session.
    await (await signedInAgent(ways.app, person)).agent.get(ENDPOINTS.authorization).query(query).expect(302);
    expect(
      await unkeyedIn(() => request(ways.app).patch(`/users/${person.id}`).send({ password: 'another-long-password-3' }).expect(204)),
    ).toEqual([]);
    await eventually('the new password logout token', () => rp.requests.length === 2);
  });
});
