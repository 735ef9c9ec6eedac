// /account: the profile form (claims released by userinfo), changing the password, the signed-in
// browsers with Sign out, connected applications, and the recent security activity.
import request from 'supertest';
import { ActivityModel } from '../../src/account/activity.model';
import { SessionModel } from '../../src/session/session.model';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { eventually } from '../helpers/polling';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { postForm } from '../helpers/account-pages';
import { approve, clientSecretPost, csrfFrom, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

const EMPTY_PROFILE = Object.fromEntries(
  [
    'firstName',
    'lastName',
    'picture',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'phone_number',
    ...['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'].map((field) => `address.${field}`),
  ].map((name) => [name, '']),
);

describe('GET /account', () => {
  it('sends a signed-out browser to sign in and come back', async () => {
    const res = await request(app).get('/account').expect(302);
    expect(res.headers.location).toBe('/login?return_to=%2Faccount');
  });

  it('shows every section, the change-password form with its names, and is linked from /home', async () => {
    const { agent, user } = await signedInAgent(app, await createUser());
    expect((await agent.get('/home').expect(200)).text).toContain('href="/account"');
    const page = await agent.get('/account').expect(200);
    expect(page.headers['cache-control']).toBe('no-store');
    for (const heading of ['Email', 'Profile', 'Password', 'Signed-in browsers', 'Connected applications', 'Recent security activity']) {
      expect(page.text).toContain(`<h2>${heading}</h2>`);
    }
    expect(page.text).toContain(user.email);
    expect(page.text).toContain('name="currentPassword"');
    expect(page.text).toMatch(/<button type="submit">Change password<\/button>/);
    expect(page.text).toContain('(this browser)');
  });
});

describe('POST /account/profile', () => {
  it('saves names, picture and claims, which userinfo then releases for their scopes', async () => {
    const { agent, user } = await signedInAgent(app, await createUser());
    const res = await postForm(agent, '/account', '/account/profile', {
      ...EMPTY_PROFILE,
      firstName: 'Grace',
      lastName: 'Hopper',
      picture: 'https://pictures.example.com/grace.png',
      website: 'https://grace.example.com',
      locale: 'en-US',
      zoneinfo: 'America/New_York',
      birthdate: '1906-12-09',
      phone_number: '+15550100',
      'address.locality': 'Arlington',
      'address.country': 'US',
    });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/account?done=profile');
    const read = (await request(app).get(`/users/${user.id}`).expect(200)).body as Record<string, unknown>;
    expect(read).toMatchObject({
      firstName: 'Grace',
      lastName: 'Hopper',
      claims: {
        website: 'https://grace.example.com',
        locale: 'en-US',
        zoneinfo: 'America/New_York',
        birthdate: '1906-12-09',
        phone_number: '+15550100',
        address: { locality: 'Arlington', country: 'US' },
      },
    });
    expect(read.email).toBe(user.email);

    const client = await registerClient();
    const location = await approve(agent, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile phone address',
      nonce: 'n',
    });
    const tokens = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code'),
        redirect_uri: REDIRECT_URI,
        ...clientSecretPost(client),
      })
      .expect(200);
    const userinfo = await request(app)
      .get('/oauth/userinfo')
      .set('Authorization', `Bearer ${(tokens.body as { access_token: string }).access_token}`)
      .expect(200);
    expect(userinfo.body).toMatchObject({
      given_name: 'Grace',
      family_name: 'Hopper',
      picture: 'https://pictures.example.com/grace.png',
      website: 'https://grace.example.com',
      phone_number: '+15550100',
      address: { locality: 'Arlington', country: 'US' },
    });

    // An emptied field shares nothing any more.
    await postForm(agent, '/account', '/account/profile', { ...EMPTY_PROFILE, firstName: 'Grace' });
    const cleared = await UserModel.findById(user.id).lean();
    expect(cleared?.lastName).toBeUndefined();
    expect(cleared?.claims).toBeUndefined();
    expect(cleared?.avatarUrl).toBeUndefined();
  });

  it.each([
    ['website', 'not a url', 'claims.website must be an http or https URL'],
    ['phone_number', '555-0100', 'claims.phone_number must be an E.164 number'],
    ['picture', 'javascript:alert(1)', 'picture must be an http or https URL'],
    ['firstName', 'x'.repeat(101), 'firstName must be at most 100 characters'],
  ])('refuses %s=%j with the rule, and changes nothing', async (field, value, message) => {
    const { agent, user } = await signedInAgent(app, await createUser());
    const before = await UserModel.findById(user.id).lean();
    const res = await postForm(agent, '/account', '/account/profile', { ...EMPTY_PROFILE, firstName: 'Kept', [field]: value });
    expect(res.status).toBe(400);
    expect(res.text).toContain(message);
    expect(await UserModel.findById(user.id).lean()).toEqual(before);
  });
});

describe('POST /account/password', () => {
  it('needs the current password, keeps the 5-character rule, and then ends every other session', async () => {
    const user = await createUser();
    const { agent } = await signedInAgent(app, user);
    const { agent: other } = await signedInAgent(app, user);

    const wrong = await postForm(agent, '/account', '/account/password', { currentPassword: 'not-it', password: 'next-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Invalid current password');
    const short = await postForm(agent, '/account', '/account/password', { currentPassword: user.password, password: 'abc' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('Must include password (5+ characters)');
    await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);

    const changed = await postForm(agent, '/account', '/account/password', { currentPassword: user.password, password: 'next-password' });
    expect(changed.status).toBe(303);
    expect(changed.headers.location).toBe('/account?done=password');
    // This browser is signed in again; the other one is signed out.
    expect((await agent.get('/account?done=password').expect(200)).text).toContain('Your password is changed');
    expect((await other.get('/account')).status).toBe(302);
    await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(400);
    await request(app).post('/auth').send({ email: user.email, password: 'next-password' }).expect(201);
  });
});

describe('signed-in browsers', () => {
  it('lists each with its device, address and last use, and signs out one, or every other', async () => {
    const user = await createUser();
    const agents = [];
    for (const device of [
      'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    ]) {
      const agent = request.agent(app);
      agent.set('User-Agent', device);
      const page = await agent.get('/login');
      await agent
        .post('/login')
        .type('form')
        .send({ _csrf: csrfFrom(page.text), email: user.email, password: user.password })
        .expect(303);
      agents.push(agent);
    }
    const [firefox, safari, chrome] = agents;
    const page = (await firefox.get('/account').expect(200)).text;
    expect(page).toContain('Firefox on Linux (this browser)');
    expect(page).toContain('Safari on iPhone');
    expect(page).toContain('From 127.0.0.1');
    // The session ids (which would sign their holder in) never appear in the page.
    for (const session of await SessionModel.find({ userId: user.id }).lean()) expect(page).not.toContain(session._id);

    const handles = [...page.matchAll(/action="\/account\/sessions\/([^/]+)\/sign-out"/g)].map((match) => match[1]);
    expect(handles).toHaveLength(2);
    const safariHandle = handles[page.indexOf('Safari on iPhone') < page.indexOf('Chrome on Windows') ? 0 : 1];
    const one = await postForm(firefox, '/account', `/account/sessions/${safariHandle}/sign-out`, {});
    expect(one.status).toBe(303);
    expect((await safari.get('/account')).status).toBe(302);
    expect((await chrome.get('/account')).status).toBe(200);

    // Another person's handle signs nobody out.
    const { agent: stranger } = await signedInAgent(app);
    const handle = [...page.matchAll(/action="\/account\/sessions\/([^/]+)\/sign-out"/g)]
      .map((match) => match[1])
      .find((h) => h !== safariHandle)!;
    await postForm(stranger, '/account', `/account/sessions/${handle}/sign-out`, {});
    expect((await chrome.get('/account')).status).toBe(200);

    const others = await postForm(firefox, '/account', '/account/sessions/sign-out-others', {});
    expect(others.status).toBe(303);
    expect((await chrome.get('/account')).status).toBe(302);
    expect((await firefox.get('/account')).status).toBe(200);
  });

  it('refuses the forms without the CSRF token', async () => {
    const { agent } = await signedInAgent(app);
    await agent.post('/account/sessions/sign-out-others').type('form').send({}).expect(403);
    await agent.post('/account/password').type('form').send({ currentPassword: 'x', password: 'yyyyyy' }).expect(403);
  });
});

describe('recent security activity', () => {
  it('shows sign-ins, failed attempts and password changes, newest first', async () => {
    const user = await createUser();
    await request(app).post('/auth').send({ email: user.email, password: 'wrong-password' }).expect(400);
    const { agent } = await signedInAgent(app, user);
    await postForm(agent, '/account', '/account/password', { currentPassword: user.password, password: 'changed-password' });
    // Failures are recorded after the answer goes: wait for the entry itself.
    const recorded = () => ActivityModel.exists({ userId: user.id, kind: 'sign-in-failed' }).then((found) => found !== null);
    await eventually('the sign-in-failed event', recorded);
    const page = (await agent.get('/account').expect(200)).text;
    const section = page.slice(page.indexOf('Recent security activity'));
    const order = ['Password changed', 'Signed in', 'Failed sign-in attempt'].map((words) => section.indexOf(words));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});

describe('connected applications on /account', () => {
  it('revokes from /account and comes back to it', async () => {
    const { agent } = await signedInAgent(app);
    const client = await registerClient({ name: 'Account Page App' });
    await approve(agent, { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'read' });
    const page = (await agent.get('/account').expect(200)).text;
    expect(page).toContain(client.name);
    const res = await agent
      .post(`/home/applications/${client.client_id}/revoke`)
      .type('form')
      .send({ _csrf: csrfFrom(page), back: '/account' })
      .expect(303);
    expect(res.headers.location).toBe('/account');
    expect((await agent.get('/account').expect(200)).text).toContain('No application has access to your account.');
  });
});

describe('activity retention', () => {
  it('lists nothing older than 90 days, and pages the rest 20 at a time', async () => {
    const { agent, user } = await signedInAgent(app, await createUser());
    const day = 24 * 3600_000;
    await ActivityModel.create({
      _id: `old-${user.id}`,
      userId: user.id,
      kind: 'signed-in',
      at: new Date(Date.now() - 91 * day),
      address: '192.0.2.91',
    });
    await ActivityModel.insertMany(
      Array.from({ length: 25 }, (_, i) => ({
        _id: `recent-${user.id}-${i}`,
        userId: user.id,
        kind: 'sign-in-failed',
        at: new Date(Date.now() - (i + 1) * day),
        address: `192.0.2.${i}`,
      })),
    );
    const first = (await agent.get('/account').expect(200)).text;
    expect(first).not.toContain('192.0.2.91');
    expect(first).toContain('href="/account?activity_page=1"');
    const second = (await agent.get('/account?activity_page=1').expect(200)).text;
    expect(second).toContain('href="/account?activity_page=0"');
    const rows = (text: string) => (text.slice(text.indexOf('Recent security activity')).match(/Failed sign-in attempt/g) ?? []).length;
    // 26 in all (the sign-in of this test too): 20 on the first page, the rest on the second.
    expect(rows(first) + rows(second)).toBe(25);
    expect(second).not.toContain('192.0.2.91');
  });
});
