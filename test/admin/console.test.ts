// The operator's console under /admin through HTTP: who gets in (the admin role, a second factor from
// the last 10 minutes, else the step-up, and back to the page asked for), and what its forms do,
// each an event naming the admin. Chromium drives the same pages in test/e2e/console-browser.test.ts.
import request from 'supertest';
import { ActivityModel } from '../../src/account/activity.model';
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
  });

  it('lets a fresh admin in, and sends one whose factor is older than 10 minutes through the step-up and back', async () => {
    // Its own app: the clock it moves would put the other tests' codes out of step.
    const clock = movableClock();
    const { agent, key } = await operator(testApp({}, { clock }));
    await agent.get('/admin/people').expect(200);
    clock.move(11 * 60_000);
    const res = await agent.get('/admin/events?kind=disabled').expect(302);
    expect(res.headers.location).toBe('/login/verify');
    const back = await giveCode(agent, totpCode(key, clock.now()));
    expect(back.status).toBe(303);
    expect(back.headers.location).toBe('/admin/events?kind=disabled');
    await agent.get('/admin/events?kind=disabled').expect(200);
  });

  it('answers its pages no-store, framed by nobody', async () => {
    const { agent } = await operator();
    const res = await agent.get('/admin/keys').expect(200);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
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
