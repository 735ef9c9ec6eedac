// The admin API's people and events through HTTP, with an operator client's admin-scope token: find
// people by the start of an email or name a page at a time, see one, disable and enable them (their
// tokens stop working), end their sessions (their browser is signed out at once), reset their second
// factors, and read each of these, with who did it, in the events list.
import request from 'supertest';
import { ActivityModel } from '../../src/account/activity.model';
import { TotpModel } from '../../src/factors/totp.model';
import * as clientsService from '../../src/oauth/clients/clients.service';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { eventually } from '../helpers/polling';
import { createUser } from '../helpers/factories';
import { enrolTotp } from '../helpers/factors';
import { authorizationCode, operatorToken, passwordGrant, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();
let admin: string;

beforeAll(async () => {
  admin = `Bearer ${await operatorToken(app)}`;
});

const get = (path: string) => request(app).get(path).set('Authorization', admin);
const post = (path: string) => request(app).post(path).set('Authorization', admin);
const del = (path: string) => request(app).delete(path).set('Authorization', admin);

describe('the people list', () => {
  it('finds people by the start of their email or name, any case for names, a page at a time', async () => {
    const tag = `p${Date.now()}`;
    const ada = await createUser({ email: `${tag}-ada@example.com`, firstName: 'Adaline', lastName: 'Byron' });
    await createUser({ email: `${tag}-bob@example.com`, firstName: 'Bob' });
    await createUser({ email: `${tag}-cy@example.com`, firstName: 'Cy' });
    const byEmail = await get(`/admin/api/people?q=${tag}&limit=2`).expect(200);
    expect(byEmail.body.people).toHaveLength(2);
    const rest = await get(`/admin/api/people?q=${tag}&limit=2&after=${byEmail.body.next}`).expect(200);
    expect(rest.body.people).toHaveLength(1);
    expect(rest.body.next).toBeNull();
    const all = [...byEmail.body.people, ...rest.body.people].map((person: { email: string }) => person.email).sort();
    expect(all).toEqual([`${tag}-ada@example.com`, `${tag}-bob@example.com`, `${tag}-cy@example.com`]);
    const byName = await get('/admin/api/people?q=ADALINE').expect(200);
    expect(byName.body.people.map((person: { id: string }) => person.id)).toContain(ada.id);
    // A pattern's characters are text, not a pattern.
    expect((await get('/admin/api/people?q=.*').expect(200)).body.people).toEqual([]);
  });

  it.each([['limit=0'], ['limit=101'], ['limit=x'], [`q=${'a'.repeat(101)}`], ['q=']])('refuses %s with a 400', async (query) => {
    expect((await get(`/admin/api/people?${query}`).expect(400)).body.error).toBe('invalid_request');
  });

  it('needs an admin-scope token', async () => {
    await request(app).get('/admin/api/people').expect(401);
    await request(app).get('/admin/api/events').expect(401);
  });
});

describe('acting on a person', () => {
  it('shows them; disabling ends their tokens and sign-in, enabling lets them in again', async () => {
    const { user: person, tokens } = await passwordGrant(app);
    await get(`/admin/api/people/${person.id}`)
      .expect(200)
      .expect((res) =>
        expect(res.body).toMatchObject({ id: person.id, email: person.email, disabled: false, factors: { totp: false, passkeys: false } }),
      );
    const bearer = `Bearer ${tokens.access_token}`;
    await request(app).get('/api/user').set('Authorization', bearer).expect(200);

    await post(`/admin/api/people/${person.id}/disable`).expect(204);
    expect((await get(`/admin/api/people/${person.id}`).expect(200)).body.disabled).toBe(true);
    await request(app).get('/api/user').set('Authorization', bearer).expect(401);
    // A disabled account is no account: POST /auth answers as for a wrong password.
    await request(app).post('/auth').send({ email: person.email, password: person.password }).expect(400);
    await post(`/admin/api/people/${person.id}/enable`).expect(204);
    await request(app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
    await post('/admin/api/people/nobody/disable').expect(404);
  });

  it("ends every session: the person's browser is signed out at once", async () => {
    const person = await createUser();
    const { agent } = await signedInAgent(app, person);
    await agent.get('/home').expect(200);
    await del(`/admin/api/people/${person.id}/sessions`).expect(204);
    await agent.get('/home').expect(302);
  });

  it('resets the second factors: the person signs in with the password and enrols again', async () => {
    const person = await createUser();
    const { agent } = await signedInAgent(app, person);
    await enrolTotp(agent);
    expect((await get(`/admin/api/people/${person.id}`).expect(200)).body.factors.totp).toBe(true);
    await del(`/admin/api/people/${person.id}/factors`).expect(204);
    expect(await TotpModel.countDocuments({ userId: person.id })).toBe(0);
    expect((await get(`/admin/api/people/${person.id}`).expect(200)).body.factors.totp).toBe(false);
  });
});

describe("a person's applications and deletion", () => {
  it('lists the applications the person allowed and ends one, with an event; an unknown one is 404', async () => {
    const client = await registerClient({ grants: ['authorization_code'] });
    const { code, user } = await authorizationCode(app, client, { scope: 'read' });
    expect(code).toBeTruthy();
    const listed = await get(`/admin/api/people/${user.id}/applications`).expect(200);
    expect(listed.body.applications.map((entry: { client_id: string }) => entry.client_id)).toEqual([client.client_id]);
    await del(`/admin/api/people/${user.id}/applications/${client.client_id}`).expect(204);
    expect((await get(`/admin/api/people/${user.id}/applications`).expect(200)).body.applications).toEqual([]);
    await del(`/admin/api/people/${user.id}/applications/${client.client_id}`).expect(404);
    expect(await ActivityModel.countDocuments({ userId: user.id, kind: 'application-revoked' })).toBe(1);
  });

  it('deletes the person: every token ends, and the event stays', async () => {
    const { user: person, tokens } = await passwordGrant(app);
    await del(`/admin/api/people/${person.id}`).expect(204);
    await get(`/admin/api/people/${person.id}`).expect(404);
    await request(app).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`).expect(401);
    const events = await get(`/admin/api/events?person=${person.id}&kind=deleted`).expect(200);
    expect(events.body.events).toHaveLength(1);
  });
});

describe('the events list', () => {
  it('shows what operators did, with who did it, filtered by person, kind and time, newest first, a page at a time', async () => {
    const person = await createUser();
    const start = new Date().toISOString();
    await post(`/admin/api/people/${person.id}/disable`).expect(204);
    await post(`/admin/api/people/${person.id}/enable`).expect(204);
    await del(`/admin/api/people/${person.id}/sessions`).expect(204);

    const first = await get(`/admin/api/events?person=${person.id}&limit=2`).expect(200);
    expect(first.body.events.map((event: { kind: string }) => event.kind)).toEqual(['sessions-ended', 'enabled']);
    expect(first.body.events[0]).toMatchObject({
      person: person.id,
      actor: expect.stringMatching(/^client:/),
      application: expect.any(String),
    });
    const second = await get(`/admin/api/events?person=${person.id}&limit=2&after=${first.body.next}`).expect(200);
    expect(second.body.events.map((event: { kind: string }) => event.kind)).toEqual(['disabled']);
    expect(second.body.next).toBeNull();

    const disabled = await get(`/admin/api/events?person=${person.id}&kind=disabled&since=${start}`).expect(200);
    expect(disabled.body.events).toHaveLength(1);
    const application = first.body.events[0].application as string;
    expect((await get(`/admin/api/events?application=${application}&person=${person.id}`).expect(200)).body.events).toHaveLength(3);
    expect((await get(`/admin/api/events?person=${person.id}&until=${start}`).expect(200)).body.events).toEqual([]);
    expect(await ActivityModel.countDocuments({ userId: person.id, actor: /^client:/ })).toBe(3);
  });

  it.each([['kind=nothing'], ['since=yesterday'], ['after=not-a-cursor'], ['limit=1000']])('refuses %s with a 400', async (query) => {
    expect((await get(`/admin/api/events?${query}`).expect(400)).body.error).toBe('invalid_request');
  });
});

describe('applications and keys', () => {
  const patch = (path: string) => request(app).patch(path).set('Authorization', admin);

  it('registers an application as RFC 7591 does, owned by nobody, and refuses bad metadata by name', async () => {
    const created = await post('/admin/api/applications')
      .send({ client_name: 'Payroll', redirect_uris: ['https://payroll.example.com/cb'], grant_types: ['authorization_code'] })
      .expect(201);
    expect(created.body).toMatchObject({
      client_name: 'Payroll',
      client_secret: expect.any(String),
      registration_access_token: expect.any(String),
    });
    expect(await clientsService.details(created.body.client_id)).toMatchObject({ owner_id: null, name: 'Payroll' });
    const shown = await get(`/admin/api/applications/${created.body.client_id}`).expect(200);
    expect(shown.body).not.toHaveProperty('client_secret');
    const bad = await post('/admin/api/applications')
      .send({ redirect_uris: ['ftp://x'], grant_types: ['authorization_code'] })
      .expect(400);
    expect(bad.body.error).toBe('invalid_redirect_uri');
    const notJson = await post('/admin/api/applications').type('text').send('not json').expect(400);
    expect(notJson.body.error).toBe('invalid_client_metadata');
    expect(await ActivityModel.countDocuments({ kind: 'application-registered', clientId: created.body.client_id })).toBe(1);
  });

  it('lists and finds applications a page at a time, and who has granted one', async () => {
    const client = await registerClient({ name: 'Quokka Notes', grants: ['authorization_code'] });
    const { user } = await authorizationCode(app, client, { scope: 'read' });
    const found = await get('/admin/api/applications').query({ q: 'quokka' }).expect(200);
    expect(found.body.applications.map((app: { client_id: string }) => app.client_id)).toContain(client.client_id);
    // A pattern's characters are text here too, in ids and in names.
    expect((await get('/admin/api/applications').query({ q: '.*' }).expect(200)).body.applications).toEqual([]);
    const first = await get('/admin/api/applications').query({ limit: 1 }).expect(200);
    expect(first.body.applications).toHaveLength(1);
    const second = await get('/admin/api/applications').query({ limit: 1, after: first.body.next }).expect(200);
    expect(second.body.applications[0].client_id > first.body.applications[0].client_id).toBe(true);
    await get('/admin/api/applications').query({ limit: 0 }).expect(400);
    const grants = await get(`/admin/api/applications/${client.client_id}/grants`).expect(200);
    expect(grants.body).toEqual({
      grants: [expect.objectContaining({ person_id: user.id, email: user.email, scope: ['read'] })],
      next: null,
    });
    await get('/admin/api/applications/nope/grants').expect(404);
  });

  it('changes an application, replaces its secret and deletes it, each an event naming the operator client', async () => {
    const client = await registerClient({ grants: ['password'] });
    await patch(`/admin/api/applications/${client.client_id}`).send({ client_name: '' }).expect(400);
    await patch(`/admin/api/applications/${client.client_id}`).send({ token_endpoint_auth_method: 'none' }).expect(400);
    await patch(`/admin/api/applications/${client.client_id}`).send({}).expect(400);
    await patch('/admin/api/applications/nope').send({ client_name: 'X' }).expect(404);
    const changed = await patch(`/admin/api/applications/${client.client_id}`)
      .send({ client_name: 'Kept', redirect_uris: ['https://kept.example.com/cb'] })
      .expect(200);
    expect(changed.body).toMatchObject({ client_name: 'Kept', redirect_uris: ['https://kept.example.com/cb'], grant_types: ['password'] });
    const rotated = await post(`/admin/api/applications/${client.client_id}/secret`).expect(200);
    const user = await createUser();
    const grant = (secret: string) =>
      request(app)
        .post('/oauth/token')
        .auth(client.client_id, secret)
        .type('form')
        .send({ grant_type: 'password', username: user.email, password: user.password });
    await grant(client.client_secret).expect(401);
    await grant(rotated.body.client_secret).expect(200);
    await del(`/admin/api/applications/${client.client_id}`).expect(204);
    await del(`/admin/api/applications/${client.client_id}`).expect(404);
    await grant(rotated.body.client_secret).expect(401);
    const events = await get('/admin/api/events').query({ application: client.client_id }).expect(200);
    expect(events.body.events.map((event: { kind: string }) => event.kind).sort()).toEqual([
      'application-changed',
      'application-deleted',
      'application-secret-rotated',
    ]);
    expect(events.body.events[0]).toMatchObject({ person: null, actor: expect.stringMatching(/^client:/) });
  });

  it('lists the signing keys and rotates them: the new ones current, the old ones retired and still published', async () => {
    const before = await get('/admin/api/keys').expect(200);
    const rotated = await post('/admin/api/keys/rotate').expect(200);
    const states = new Map(rotated.body.keys.map((key: { kid: string; state: string }) => [key.kid, key.state]));
    for (const key of before.body.keys as { kid: string; state: string }[])
      if (key.state === 'current') expect(states.get(key.kid)).toBe('retired');
    expect([...states.values()].filter((state) => state === 'current')).toHaveLength(2);
    const jwks = (await request(app).get('/oauth/jwks').expect(200)).body.keys.map((key: { kid: string }) => key.kid);
    for (const kid of states.keys()) expect(jwks).toContain(kid);
  });

  it('unlocks a person and says how many failures it forgot', async () => {
    const person = await createUser();
    const res = await post(`/admin/api/people/${person.id}/unlock`).expect(200);
    expect(res.body).toEqual({ failures_forgotten: 0 });
    await post('/admin/api/people/nobody/unlock').expect(404);
  });

  it('needs an admin-scope token for each of these', async () => {
    for (const [method, path] of [
      ['get', '/admin/api/applications'],
      ['post', '/admin/api/applications'],
      ['get', '/admin/api/keys'],
      ['post', '/admin/api/keys/rotate'],
    ] as const) {
      await request(app)[method](path).expect(401);
    }
  });
});

describe("a person's browsers and reset link", () => {
  it('shows the claims the person shares', async () => {
    const person = await createUser();
    await request(app)
      .patch(`/users/${person.id}`)
      .send({ claims: { locale: 'en-GB', zoneinfo: 'Europe/London' } })
      .expect(204);
    const shown = await get(`/admin/api/people/${person.id}`).expect(200);
    expect(shown.body.claims).toEqual({ locale: 'en-GB', zoneinfo: 'Europe/London' });
  });

  it('lists the signed-in browsers and signs one out, the others staying signed in', async () => {
    const person = await createUser();
    const first = await signedInAgent(app, person);
    const second = await signedInAgent(app, person);
    const listed = await get(`/admin/api/people/${person.id}/sessions`).expect(200);
    expect(listed.body.sessions).toHaveLength(2);
    expect(listed.body.more).toBe(false);
    expect(JSON.stringify(listed.body)).not.toMatch(/sid|cookie/i);
    await del(`/admin/api/people/${person.id}/sessions/${listed.body.sessions[0].handle}`).expect(204);
    await del(`/admin/api/people/${person.id}/sessions/${listed.body.sessions[0].handle}`).expect(404);
    const statuses = [(await first.agent.get('/home')).status, (await second.agent.get('/home')).status].sort();
    expect(statuses).toEqual([200, 302]);
    expect(await ActivityModel.countDocuments({ userId: person.id, kind: 'sessions-ended', detail: /one browser/ })).toBe(1);
  });

  it('sends a reset link with the forgotten-password mail, as an event naming the operator client', async () => {
    const person = await createUser();
    await post(`/admin/api/people/${person.id}/reset-link`).expect(202);
    // The mail is prepared after the answer: wait for its entry itself.
    const recorded = () => ActivityModel.exists({ userId: person.id, kind: 'password-reset-requested' }).then((found) => found !== null);
    await eventually('the password-reset-requested event', recorded);
    expect(await ActivityModel.findOne({ userId: person.id, kind: 'password-reset-requested' }).lean()).toMatchObject({
      detail: expect.stringContaining('console, by'),
    });
    await post('/admin/api/people/nobody/reset-link').expect(404);
  });
});

describe('bodies the admin API cannot read', () => {
  it.each([
    ['/admin/api/applications', 'post'],
    ['/admin/api/roles', 'post'],
  ] as const)('refuses a body over 100 kB at %s in the OAuth shape the document states', async (path, method) => {
    const res = await request(app)
      [method](path)
      .set('Authorization', admin)
      .type('json')
      .send(JSON.stringify({ client_name: 'x'.repeat(101 * 1024) }))
      .expect(413);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });
});
