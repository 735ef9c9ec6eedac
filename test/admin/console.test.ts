// The operator's console under /admin through HTTP: who gets in (the admin role, a second factor from
// the last 10 minutes, else the step-up, and back to the page asked for), and what its forms do,
// each an event naming the admin. Chromium drives the same pages in test/e2e/console-browser.test.ts.
import request from 'supertest';
import { ActivityModel } from '../../src/account/activity.model';
import * as clientsService from '../../src/oauth/clients/clients.service';
import * as usersService from '../../src/users/users.service';
import { testApp } from '../helpers/app';
import { movableClock } from '../helpers/clock';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp, giveCode, totpCode, type Agent } from '../helpers/factors';
import { authorizationCode, csrfFrom, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

const PAGES = ['/admin', '/admin/people', '/admin/applications', '/admin/keys', '/admin/events'];
const FORMS = ['sessions/end', 'factors/reset', 'disable', 'enable'];

/** An admin signed in with a password and an authenticator app just now. */
async function operator(on = app): Promise<{ agent: Agent; key: string; id: string }> {
  const person = await createUser();
  await usersService.setRole(person.id, 'admin', true);
  const { agent } = await signedInAgent(on, person);
  const { key } = await enrolTotp(agent);
  return { agent, key, id: person.id };
}

describe('who gets in', () => {
  it('sends a browser without a session to sign in, coming back to the page', async () => {
    await request(app)
      .get('/admin/events?kind=disabled')
      .expect(302)
      .expect('Location', '/login?return_to=%2Fadmin%2Fevents%3Fkind%3Ddisabled');
  });

  it('refuses a person without the admin role on every page and form, with 403', async () => {
    const { agent } = await signedInAgent(app);
    await enrolTotp(agent);
    for (const path of PAGES) expect((await agent.get(path)).status).toBe(403);
    const target = await createUser();
    const page = await agent.get('/account').expect(200);
    for (const form of FORMS) {
      const res = await agent
        .post(`/admin/people/${target.id}/${form}`)
        .type('form')
        .send({ _csrf: csrfFrom(page.text) });
      expect(res.status).toBe(403);
    }
    expect(
      (
        await agent
          .post('/admin/keys/rotate')
          .type('form')
          .send({ _csrf: csrfFrom(page.text) })
      ).status,
    ).toBe(403);
  });

  it('asks an admin without a second factor to add one', async () => {
    const person = await createUser();
    await usersService.setRole(person.id, 'admin', true);
    const { agent } = await signedInAgent(app, person);
    const res = await agent.get('/admin/people').expect(403);
    expect(res.text).toContain('The console needs a second factor');
    expect(res.text).toContain('href="/account/totp"');
    expect(res.headers['cache-control']).toContain('no-store');
  });

  it('lets a fresh admin in, and sends one whose factor is older than 10 minutes through the step-up and back', async () => {
    // Its own app: the clock it moves would put the other tests' codes out of step.
    const clock = movableClock();
    const { agent, key } = await operator(testApp({}, { clock }));
    await agent.get('/admin/people').expect(200);
    clock.move(11 * 60_000);
    const res = await agent.get('/admin/events?kind=disabled').expect(302);
    expect(res.headers.location).toBe('/login/verify');
    // The step-up page says it is the console that asks, not an application.
    expect((await agent.get('/login/verify').expect(200)).text).toContain('The operator’s console asks for your second factor');
    const back = await giveCode(agent, totpCode(key, clock.now()));
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe('/admin/events?kind=disabled');
    await agent.get('/admin/events?kind=disabled').expect(200);
  });

  it('answers its pages no-store, framed by nobody, its refusals too (403, 404, a form without its token)', async () => {
    const { agent } = await operator();
    const res = await agent.get('/admin/keys').expect(200);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const missing = await agent.get('/admin/people/no-such-person').expect(404);
    expect(missing.headers['cache-control']).toContain('no-store');
    expect(missing.text).toContain('href="/admin/people"');
    expect((await agent.post('/admin/keys/rotate').type('form').send({}).expect(403)).headers['cache-control']).toContain('no-store');
    const { agent: stranger } = await signedInAgent(app);
    expect((await stranger.get('/admin/people').expect(403)).headers['cache-control']).toContain('no-store');
  });
});

describe('roles on the person page', () => {
  it('gives and takes admin (and any defined role) by an operator, each an event naming them', async () => {
    const { agent, id } = await operator();
    const target = await createUser();
    const page = await agent.get(`/admin/people/${target.id}`).expect(200);
    expect(page.text).toContain('<option value="admin">admin</option>');
    const form = (path: string, fields: Record<string, string> = {}) =>
      agent
        .post(path)
        .type('form')
        .send({ _csrf: csrfFrom(page.text), ...fields });
    await form(`/admin/people/${target.id}/roles`, { role: 'admin' }).expect(303);
    expect(usersService.rolesOf((await usersService.findById(target.id))!)).toEqual(['admin']);
    await form(`/admin/people/${target.id}/roles`, { role: 'nobody' }).expect(404);
    await form(`/admin/people/${target.id}/roles`, { role: 'Not A Name' }).expect(400);
    await form(`/admin/people/${target.id}/roles/admin/take`).expect(303);
    expect(usersService.rolesOf((await usersService.findById(target.id))!)).toEqual([]);
    const events = await ActivityModel.find({ userId: target.id }).sort({ at: 1 }).lean();
    expect(events.filter((event) => event.kind.startsWith('role-')).map((event) => [event.kind, event.actor])).toEqual([
      ['role-given', `person:${id}`],
      ['role-taken', `person:${id}`],
    ]);
  });
});

describe('what its forms do', () => {
  it('ends sessions, resets factors, disables and enables, each an event naming the admin', async () => {
    const { agent, id: adminId } = await operator();
    const target = await createUser({ firstName: 'Target' });
    const { agent: theirs } = await signedInAgent(app, target);
    await enrolTotp(theirs);
    const page = await agent.get(`/admin/people/${target.id}`).expect(200);
    expect(page.text).toContain('Second factors: authenticator app');
    const post = (form: string) =>
      agent
        .post(`/admin/people/${target.id}/${form}`)
        .type('form')
        .send({ _csrf: csrfFrom(page.text) });

    await post('sessions/end').expect(303).expect('Location', `/admin/people/${target.id}?done=sessions-ended`);
    await theirs.get('/home').expect(302);
    await post('factors/reset').expect(303);
    expect((await agent.get(`/admin/people/${target.id}`).expect(200)).text).toContain('Second factors: none');
    await post('disable').expect(303);
    expect(await usersService.findById(target.id)).toMatchObject({ disabled: true });
    await post('enable').expect(303);

    const events = await ActivityModel.find({ userId: target.id, actor: `person:${adminId}` })
      .sort({ at: 1 })
      .lean();
    expect(events.map((event) => event.kind)).toEqual(['sessions-ended', 'factor-removed', 'disabled', 'enabled']);
    const listed = await agent.get(`/admin/events?person=${target.id}`).expect(200);
    expect(listed.text).toContain('every browser signed out');
  });

  it("ends an application's access, sends a reset link, and deletes the person", async () => {
    const { agent } = await operator();
    const client = await registerClient({ grants: ['authorization_code'] });
    const { user } = await authorizationCode(app, client, { scope: 'read' });
    const page = await agent.get(`/admin/people/${user.id}`).expect(200);
    expect(page.text).toContain('Example App');
    const post = (path: string) =>
      agent
        .post(`/admin/people/${user.id}/${path}`)
        .type('form')
        .send({ _csrf: csrfFrom(page.text) });
    await post(`applications/${client.client_id}/revoke`).expect(303).expect('Location', `/admin/people/${user.id}?done=revoked`);
    expect((await agent.get(`/admin/people/${user.id}?done=revoked`).expect(200)).text).toContain('access has ended.');
    await post(`applications/${client.client_id}/revoke`).expect(404);
    await post('reset-link').expect(303).expect('Location', `/admin/people/${user.id}?done=reset-sent`);
    await post('delete').expect(303).expect('Location', '/admin/people?done=deleted');
    expect((await agent.get('/admin/people?done=deleted').expect(200)).text).toContain('The person is deleted.');
    await agent.get(`/admin/people/${user.id}`).expect(404);
  });

  it('needs the CSRF token', async () => {
    const { agent } = await operator();
    const target = await createUser();
    await agent.post(`/admin/people/${target.id}/disable`).type('form').send({}).expect(403);
    expect(await usersService.findById(target.id)).not.toHaveProperty('disabled');
  });

  it('rotates the keys: new ones current, the old ones still published', async () => {
    const { agent } = await operator();
    const before = (await request(app).get('/oauth/jwks').expect(200)).body.keys.map((key: { kid: string }) => key.kid) as string[];
    const page = await agent.get('/admin/keys').expect(200);
    await agent
      .post('/admin/keys/rotate')
      .type('form')
      .send({ _csrf: csrfFrom(page.text) })
      .expect(303)
      .expect('Location', '/admin/keys?done=rotated');
    const after = await agent.get('/admin/keys?done=rotated').expect(200);
    expect(after.text).toContain('New keys are current');
    for (const kid of before) expect(after.text).toContain(kid);
  });
});

describe('applications', () => {
  const form = (page: string, fields: Record<string, string | string[]>) => ({ _csrf: csrfFrom(page), ...fields });

  it('registers one with the registration API’s rules, shows its secret once, and records who did it', async () => {
    const { agent, id } = await operator();
    const blank = await agent.get('/admin/applications/new').expect(200);
    expect(blank.text).toContain('Register an application');
    // A refusal is the form again, with the registration's words and what was typed.
    const refused = await agent
      .post('/admin/applications/new')
      .type('form')
      .send(form(blank.text, { client_name: 'Ledger', redirect_uris: 'not a url', grant_types: 'authorization_code' }))
      .expect(400);
    expect(refused.text).toContain('redirect_uris has a value this server does not accept');
    expect(refused.text).toContain('value="Ledger"');
    const created = await agent
      .post('/admin/applications/new')
      .type('form')
      .send(
        form(blank.text, {
          client_name: 'Ledger',
          client_uri: 'https://ledger.example.com',
          redirect_uris: 'https://ledger.example.com/cb\r\nhttps://ledger.example.com/cb2',
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'client_secret_basic',
          backchannel_logout_uri: 'https://ledger.example.com/logout',
        }),
      )
      .expect(201);
    const clientId = /Client id: <code>([^<]+)<\/code>/.exec(created.text)![1];
    const secret = /Client secret: <code>([^<]+)<\/code>/.exec(created.text)![1];
    const registration = await clientsService.details(clientId);
    expect(registration).toMatchObject({
      name: 'Ledger',
      redirect_uris: ['https://ledger.example.com/cb', 'https://ledger.example.com/cb2'],
      grants: ['authorization_code', 'refresh_token'],
      owner_id: null,
    });
    // The secret works at the token endpoint, and is not on the application's page.
    await request(app)
      .post('/oauth/token')
      .auth(clientId, secret)
      .type('form')
      .send({ grant_type: 'authorization_code', code: 'none', redirect_uri: 'https://ledger.example.com/cb' })
      .expect(400, /invalid_grant/);
    const page = await agent.get(`/admin/applications/${clientId}`).expect(200);
    expect(page.text).toContain('<dt>Back-channel logout</dt><dd>https://ledger.example.com/logout</dd>');
    // Values in words: a date, not an epoch; a list, not JSON; who registered it.
    expect(page.text).toMatch(/<dt>Registered<\/dt><dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/dd>/);
    expect(page.text).toContain('<dt>Response types</dt><dd>code</dd>');
    expect(page.text).toContain('Registered by an operator');
    expect(page.text).not.toContain(secret);
    expect(await ActivityModel.findOne({ kind: 'application-registered', clientId }).lean()).toMatchObject({
      actor: `person:${id}`,
      detail: expect.stringContaining('Ledger registered'),
    });
    expect(await ActivityModel.findOne({ kind: 'application-registered', clientId }).lean()).not.toHaveProperty('userId');
  });

  it('finds them by the start of a name or client id', async () => {
    const { agent } = await operator();
    const mine = await registerClient({ name: 'Zebra Books' });
    const found = await agent.get('/admin/applications').query({ q: 'zebra' }).expect(200);
    expect(found.text).toContain(`/admin/applications/${mine.client_id}`);
    expect(
      (
        await agent
          .get('/admin/applications')
          .query({ q: mine.client_id.slice(0, 8) })
          .expect(200)
      ).text,
    ).toContain('Zebra Books');
    expect((await agent.get('/admin/applications').query({ q: 'no such name' }).expect(200)).text).toContain('No application found.');
  });

  it('edits one, replaces its secret (the old one refused), lists who granted it, and deletes it with what it was issued', async () => {
    const { agent, id } = await operator();
    const client = await registerClient({ grants: ['authorization_code', 'refresh_token'] });
    const { user } = await authorizationCode(app, client, { scope: 'read' });
    let page = await agent.get(`/admin/applications/${client.client_id}`).expect(200);
    expect(page.text).toContain(`/admin/people/${user.id}`);
    // A bad edit changes nothing and says why.
    const bad = await agent
      .post(`/admin/applications/${client.client_id}`)
      .type('form')
      .send(form(page.text, { client_name: 'Renamed', redirect_uris: '', grant_types: 'authorization_code' }))
      .expect(400);
    expect(bad.text).toContain('redirect_uris must keep at least one address');
    expect((await clientsService.details(client.client_id))!.name).toBe('Example App');
    await agent
      .post(`/admin/applications/${client.client_id}`)
      .type('form')
      .send(
        form(page.text, { client_name: 'Renamed', client_uri: '', redirect_uris: 'https://new.example.com/cb', grant_types: ['password'] }),
      )
      .expect(303)
      .expect('Location', `/admin/applications/${client.client_id}?done=saved`);
    expect(await clientsService.details(client.client_id)).toMatchObject({
      name: 'Renamed',
      redirect_uris: ['https://new.example.com/cb'],
      grants: ['password'],
    });
    page = await agent.get(`/admin/applications/${client.client_id}?done=saved`).expect(200);
    expect(page.text).toContain('The application is saved.');
    const rotated = await agent.post(`/admin/applications/${client.client_id}/secret`).type('form').send(form(page.text, {})).expect(200);
    const secret = /Client secret: <code>([^<]+)<\/code>/.exec(rotated.text)![1];
    const passwordFor = (clientSecret: string) =>
      request(app)
        .post('/oauth/token')
        .auth(client.client_id, clientSecret)
        .type('form')
        .send({ grant_type: 'password', username: user.email, password: user.password });
    await passwordFor(client.client_secret).expect(401);
    await passwordFor(secret).expect(200);
    await agent
      .post(`/admin/applications/${client.client_id}/delete`)
      .type('form')
      .send(form(page.text, {}))
      .expect(303)
      .expect('Location', '/admin/applications?done=application-deleted');
    await agent.get(`/admin/applications/${client.client_id}`).expect(404);
    await passwordFor(secret).expect(401);
    const kinds = (await ActivityModel.find({ clientId: client.client_id, actor: `person:${id}` }).lean()).map((event) => event.kind);
    expect(kinds.sort()).toEqual(['application-changed', 'application-deleted', 'application-secret-rotated']);
    // Each is in the events list, filtered by the application.
    const events = await agent.get('/admin/events').query({ application: client.client_id }).expect(200);
    for (const kind of kinds) expect(events.text).toContain(kind);
  });

  it('refuses people without the admin role on its pages and forms', async () => {
    const { agent } = await signedInAgent(app);
    const client = await registerClient();
    await agent.get('/admin/applications/new').expect(403);
    await agent.get(`/admin/applications/${client.client_id}`).expect(403);
    await agent.post(`/admin/applications/${client.client_id}/delete`).type('form').send({}).expect(403);
    expect(await clientsService.details(client.client_id)).not.toBeNull();
  });
});

describe('unlocking and the keys', () => {
  it("forgets a person's failed sign-ins, so their right password works at once", async () => {
    const locked = testApp({ RATE_LIMITS: 'on', RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_ADDRESS: '2' });
    const { agent } = await operator(locked);
    const target = await createUser();
    const tryPassword = (password: string) => request(locked).post('/auth').send({ email: target.email, password });
    await tryPassword('wrong-1').expect(400);
    await tryPassword('wrong-2').expect(400);
    await tryPassword(target.password).expect(429);
    const page = await agent.get(`/admin/people/${target.id}`).expect(200);
    await agent
      .post(`/admin/people/${target.id}/unlock`)
      .type('form')
      .send({ _csrf: csrfFrom(page.text) })
      .expect(303)
      .expect('Location', `/admin/people/${target.id}?done=unlocked`);
    await tryPassword(target.password).expect(201);
    expect(await ActivityModel.findOne({ userId: target.id, kind: 'unlocked' }).lean()).toMatchObject({
      detail: expect.stringContaining('2 failed'),
    });
  });

  it('records a rotation as an event of no one person, naming the admin', async () => {
    const { agent, id } = await operator();
    const page = await agent.get('/admin/keys').expect(200);
    await agent
      .post('/admin/keys/rotate')
      .type('form')
      .send({ _csrf: csrfFrom(page.text) })
      .expect(303);
    expect(await ActivityModel.findOne({ kind: 'keys-rotated', actor: `person:${id}` }).lean()).not.toHaveProperty('userId');
    expect((await agent.get('/admin/events').query({ kind: 'keys-rotated' }).expect(200)).text).toContain('new keys');
  });
});

describe("a person's browsers", () => {
  it('lists them (and the claims shared) on the person’s page and signs one out, the other staying signed in', async () => {
    const { agent } = await operator();
    const person = await createUser();
    const first = await signedInAgent(app, person);
    const second = await signedInAgent(app, person);
    await request(app)
      .patch(`/users/${person.id}`)
      .send({ claims: { locale: 'en-GB' } })
      .expect(204);
    const page = await agent.get(`/admin/people/${person.id}`).expect(200);
    expect(page.text).toContain('locale: en-GB');
    const handles = [...page.text.matchAll(/action="\/admin\/people\/[^/]+\/sessions\/([^/]+)\/end"/g)].map((found) => found[1]);
    expect(handles).toHaveLength(2);
    await agent
      .post(`/admin/people/${person.id}/sessions/${handles[0]}/end`)
      .type('form')
      .send({ _csrf: csrfFrom(page.text) })
      .expect(303)
      .expect('Location', `/admin/people/${person.id}?done=session-ended`);
    await agent
      .post(`/admin/people/${person.id}/sessions/${handles[0]}/end`)
      .type('form')
      .send({ _csrf: csrfFrom(page.text) })
      .expect(404);
    const statuses = [(await first.agent.get('/home')).status, (await second.agent.get('/home')).status].sort();
    expect(statuses).toEqual([200, 302]);
  });
});

describe('the sign-in providers', () => {
  it('are listed read-only on the applications page: GitHub when configured, and each upstream provider', async () => {
    const withProviders = testApp({
      GITHUB_CLIENT_ID: 'gh-id',
      GITHUB_CLIENT_SECRET: 'gh-secret',
      UPSTREAM_PROVIDERS: JSON.stringify([
        { id: 'acme', name: 'Acme ID', issuer: 'https://id.acme.example', client_id: 'here', client_secret: 'upstream-secret' },
      ]),
    });
    const { agent } = await operator(withProviders);
    const page = await agent.get('/admin/applications').expect(200);
    expect(page.text).toContain('<strong>GitHub</strong>');
    expect(page.text).toContain('<strong>Acme ID</strong> · acme · https://id.acme.example');
    expect(page.text).not.toContain('upstream-secret');
    expect(page.text).not.toContain('gh-secret');
    expect((await agent.get('/admin/applications').expect(200)).text).toContain('read-only here');
  });
});

describe("the pages' queries (admin/admin.queries.ts CONSOLE_QUERIES)", () => {
  it('takes an empty search as none, refuses one past its length with a page, and shows no notice for an unknown change', async () => {
    const { agent } = await operator();
    const empty = await agent.get('/admin/people?q=&after=').expect(200);
    expect(empty.text).toContain('People');
    const long = await agent.get(`/admin/people?q=${'a'.repeat(101)}`).expect(400);
    expect(long.headers['content-type']).toMatch(/^text\/html/);
    expect(long.text).toContain('q must be one value of 1 to 100 characters');
    await agent.get('/admin/events?kind=not-a-kind').expect(400);
    await agent.get('/admin/events?kind=').expect(200);
    // An inherited name is no notice (it was read off the object's prototype before).
    const stale = await agent.get('/admin/keys?done=constructor').expect(200);
    expect(stale.text).not.toContain('function');
  });
});
