// Connected applications: consent remembered per person and client, listed on /home and in the API,
// and revoked with everything it issued.
import request from 'supertest';
import { GrantModel } from '../../src/oauth/grants/grants.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, clientSecretPost, codeExchange, csrfFrom, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();

const app = testApp();
const authorizeQuery = (clientId: string, scope = 'read') => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: REDIRECT_URI,
  scope,
});

/** A person who approved the client once, with the tokens of that approval. */
async function connected(scope = 'read write') {
  const client = await registerClient({ name: 'Photo Printer' });
  const person = await createUser({ firstName: 'Ann', lastName: 'Lee' });
  const { agent } = await signedInAgent(app, person);
  const callback = await approve(agent, authorizeQuery(client.client_id, scope));
  const tokens = await request(app)
    .post('/oauth/token')
    .type('form')
    .send(codeExchange(client, callback.searchParams.get('code')!))
    .expect(200);
  return { client, person, agent, accessToken: tokens.body.access_token as string, refreshToken: tokens.body.refresh_token as string };
}

const me = (token: string) => request(app).get('/api/user').set('Authorization', `Bearer ${token}`);

describe('remembered consent', () => {
  it('skips the consent page for the same or narrower scopes and redirects at once', async () => {
    const { client, agent } = await connected('read write');
    for (const scope of ['read write', 'read']) {
      const res = await agent.get('/oauth/authorize').query(authorizeQuery(client.client_id, scope)).expect(302);
      expect(new URL(res.headers.location).searchParams.get('code')).toEqual(expect.any(String));
    }
  });

  it('shows the page again for wider scopes or prompt=consent, and answers prompt=none from the grant', async () => {
    const { client, agent } = await connected('read');
    await agent.get('/oauth/authorize').query(authorizeQuery(client.client_id, 'read write')).expect(200);
    await agent
      .get('/oauth/authorize')
      .query({ ...authorizeQuery(client.client_id), prompt: 'consent' })
      .expect(200);
    const silent = await agent
      .get('/oauth/authorize')
      .query({ ...authorizeQuery(client.client_id), prompt: 'none' })
      .expect(302);
    expect(new URL(silent.headers.location).searchParams.get('code')).toEqual(expect.any(String));
  });

  it('is per person: someone else signed in sees the consent page, which names them', async () => {
    const { client } = await connected();
    const other = await createUser({ firstName: 'Bob', lastName: 'Stone' });
    const { agent } = await signedInAgent(app, other);
    const page = await agent.get('/oauth/authorize').query(authorizeQuery(client.client_id)).expect(200);
    expect(page.text).toContain('Signed in as <strong>Bob Stone</strong>');
    expect(page.text).toContain('Switch account</a>');
  });
});

describe('connected applications on /home', () => {
  it('lists the application with its scopes and a Revoke form', async () => {
    const { agent } = await connected('read write');
    const home = await agent.get('/home').expect(200);
    expect(home.text).toContain('<h3>Photo Printer</h3>');
    expect(home.text).toContain('Access: read, write.');
    expect(home.text).toMatch(/<form method="post" action="\/home\/applications\/[^"]+\/revoke">\s*<input type="hidden" name="_csrf"/);
    expect(home.text).toContain('>Revoke</button>');
  });

  it('revokes: the tokens stop working at once, the consent is forgotten, other people keep theirs', async () => {
    const { client, agent, accessToken, refreshToken } = await connected();
    const other = await signedInAgent(app);
    const otherCallback = await approve(other.agent, authorizeQuery(client.client_id));
    const otherToken = (
      await request(app)
        .post('/oauth/token')
        .type('form')
        .send(codeExchange(client, otherCallback.searchParams.get('code')!))
    ).body.access_token as string;

    const home = await agent.get('/home').expect(200);
    const done = await agent
      .post(`/home/applications/${client.client_id}/revoke`)
      .type('form')
      .send({ _csrf: csrfFrom(home.text) })
      .expect(303);
    expect(done.headers.location).toBe('/home');
    await me(accessToken).expect(401);
    await me(otherToken).expect(200);
    // The refresh token is dead too, and the introspection of either says so: the revocation is
    // written on the person's record, which every use of their tokens reads (no search of the tokens).
    const refreshed = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: refreshToken, ...clientSecretPost(client) });
    expect(refreshed.body.error).toBe('invalid_grant');
    for (const token of [accessToken, refreshToken]) {
      const introspected = await request(app)
        .post('/oauth/introspect')
        .type('form')
        .send({ token, ...clientSecretPost(client) })
        .expect(200);
      expect(introspected.body).toEqual({ active: false });
    }
    await agent.get('/oauth/authorize').query(authorizeQuery(client.client_id)).expect(200);
    expect((await agent.get('/home')).text).toContain('No application has access to your account.');
  });

  it('refuses a revoke form without the right CSRF token, changing nothing', async () => {
    const { client, agent, accessToken } = await connected();
    await agent.post(`/home/applications/${client.client_id}/revoke`).type('form').send({}).expect(403);
    await agent.post(`/home/applications/${client.client_id}/revoke`).type('form').send({ _csrf: 'forged' }).expect(403);
    await me(accessToken).expect(200);
    expect(await GrantModel.countDocuments({ clientId: client.client_id })).toBe(1);
  });
});

describe('connected applications as JSON', () => {
  const jwtOf = async (person: { email: string; password: string }) =>
    (await request(app).post('/auth').send({ email: person.email, password: person.password }).expect(201)).body.accessToken as string;

  it('lists and revokes with the access token from POST /auth', async () => {
    const { client, person, accessToken } = await connected('read');
    const jwt = await jwtOf(person);
    const listed = await request(app).get('/oauth/grants').set('Authorization', `Bearer ${jwt}`).expect(200);
    expect(listed.body).toEqual([
      {
        client_id: client.client_id,
        name: 'Photo Printer',
        website: 'https://client.example.com',
        scope: ['read'],
        first_granted_at: expect.any(String),
        last_used_at: expect.any(String),
      },
    ]);
    await request(app).delete(`/oauth/grants/${client.client_id}`).set('Authorization', `Bearer ${jwt}`).expect(204);
    await me(accessToken).expect(401);
    await request(app).delete(`/oauth/grants/${client.client_id}`).set('Authorization', `Bearer ${jwt}`).expect(404);
  });

  it('lists a page at a time with limit and page', async () => {
    const { person } = await connected('read');
    const { agent } = await signedInAgent(app, person);
    const second = await registerClient({ name: 'Second App' });
    await approve(agent, authorizeQuery(second.client_id));
    const jwt = await jwtOf(person);
    const page = (query: Record<string, number>) => request(app).get('/oauth/grants').query(query).set('Authorization', `Bearer ${jwt}`);
    expect((await page({ limit: 1 }).expect(200)).body.map((app: { name: string }) => app.name)).toEqual(['Photo Printer']);
    expect((await page({ limit: 1, page: 1 }).expect(200)).body.map((app: { name: string }) => app.name)).toEqual(['Second App']);
    await page({ limit: 101 }).expect(400);
  });

  it("never reaches another person's grant", async () => {
    const { client, accessToken } = await connected();
    const stranger = await createUser();
    await request(app)
      .delete(`/oauth/grants/${client.client_id}`)
      .set('Authorization', `Bearer ${await jwtOf(stranger)}`)
      .expect(404);
    expect(
      (
        await request(app)
          .get('/oauth/grants')
          .set('Authorization', `Bearer ${await jwtOf(stranger)}`)
          .expect(200)
      ).body,
    ).toEqual([]);
    await me(accessToken).expect(200);
    await request(app).get('/oauth/grants').expect(401);
  });
});
