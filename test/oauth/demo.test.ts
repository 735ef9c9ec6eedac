// npm run seed -- --demo and /oauth/callback-debug: a newcomer's first authorization code flow.
import mongoose from 'mongoose';
import request from 'supertest';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import { CALLBACK_DEBUG_PATH, DEMO_CLIENT, DEMO_USER, seedDemo } from '../../src/oauth/demo/demo.service';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { spawnServer } from '../helpers/server-process';
import { runCommand } from '../helpers/commands';
import { testDatabaseUriWithName, useTestDatabase } from '../helpers/db';
import { approve, csrfFrom, signedInAgent, unescapeHtml } from '../helpers/oauth';
import { useLiveApp } from '../helpers/oidc';

useTestDatabase();
const live = useLiveApp();

describe('npm run seed -- --demo', () => {
  const seed = (args: string[], env: Record<string, string> = {}) =>
    runCommand('seed', args, {
      MONGODB_URI: testDatabaseUriWithName(mongoose.connection.name),
      LOG_LEVEL: 'warn',
      PUBLIC_URL: 'http://dev.test:3000',
      ...env,
    });

  it('adds the demo user and client once, however often it runs, and prints how to try them', async () => {
    const first = await seed(['--demo']);
    await seed(['--demo']);
    expect(first.stdout).toContain(`${DEMO_USER.email} / ${DEMO_USER.password}`);
    expect(first.stdout).toContain(
      `http://dev.test:3000/oauth/authorize?response_type=code&client_id=${DEMO_CLIENT.id}&redirect_uri=http%3A%2F%2Fdev.test%3A3000%2Foauth%2Fcallback-debug`,
    );
    expect(await UserModel.countDocuments({ email: DEMO_USER.email })).toBe(1);
    expect(await ClientModel.find({ _id: DEMO_CLIENT.id } as never).lean()).toEqual([
      expect.objectContaining({
        // The callback page first, and the API reference's Authorize dialog.
        redirectUris: ['http://dev.test:3000/oauth/callback-debug', 'http://dev.test:3000/docs/assets/oauth2-redirect.html'],
        grants: expect.arrayContaining(['authorization_code', 'refresh_token']),
      }),
    ]);
  }, 60_000);

  it('refuses in production and adds nothing', async () => {
    await ClientModel.deleteOne({ _id: DEMO_CLIENT.id } as never);
    const secrets = { JWT_SECRET: 'x'.repeat(32), SESSION_SECRET: 'y'.repeat(32), SIGNING_KEYS_SECRET: 'z'.repeat(32) };
    await expect(seed(['--demo'], { NODE_ENV: 'production', ...secrets })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('never in production'),
    });
    expect(await ClientModel.countDocuments({ _id: DEMO_CLIENT.id } as never)).toBe(0);
  }, 60_000);
});

describe('GET and POST /oauth/callback-debug', () => {
  beforeAll(() => seedDemo(live().issuer));

  it('shows the code the authorization response brought, exchanges it at the token endpoint, and shows the tokens and ID token claims', async () => {
    const { app, issuer } = live();
    const { agent } = await signedInAgent(app, { ...DEMO_USER });
    const start = await agent.get(CALLBACK_DEBUG_PATH).expect(200);
    const startUrl = new URL(unescapeHtml(/href="(\/oauth\/authorize\?[^"]+)"/.exec(start.text)?.[1] ?? ''), issuer);
    const location = await approve(agent, Object.fromEntries(startUrl.searchParams));
    expect(location.origin + location.pathname).toBe(`${issuer}${CALLBACK_DEBUG_PATH}`);
    const code = location.searchParams.get('code') ?? '';

    const callback = await agent.get(CALLBACK_DEBUG_PATH).query(Object.fromEntries(location.searchParams)).expect(200);
    expect(callback.headers['cache-control']).toContain('no-store');
    expect(callback.text).toContain(`value="${code}"`);
    expect(unescapeHtml(callback.text)).toContain(`"iss": "${issuer}"`);

    const exchanged = await agent
      .post(CALLBACK_DEBUG_PATH)
      .type('form')
      .send({
        _csrf: csrfFrom(callback.text),
        code,
        redirect_uri: `${issuer}${CALLBACK_DEBUG_PATH}`,
        client_id: DEMO_CLIENT.id,
        client_secret: DEMO_CLIENT.secret,
        code_verifier: '',
      })
      .expect(200);
    const page = unescapeHtml(exchanged.text);
    expect(page).toContain('Token response: 200');
    expect(page).toMatch(/"access_token": "[^"]+"/);
    // The ID token's claims: who signed in (the scopes' claims are userinfo's in the code flow).
    expect(page).toMatch(/"sub": "[^"]+"/);
    expect(page).toContain('"acr": "1"');
    expect(page).toContain('"client_secret": "(hidden)"');

    // A second exchange shows the token endpoint's refusal, and never the secret typed in.
    const again = await agent
      .post(CALLBACK_DEBUG_PATH)
      .type('form')
      .send({
        _csrf: csrfFrom(exchanged.text),
        code,
        redirect_uri: `${issuer}${CALLBACK_DEBUG_PATH}`,
        client_id: DEMO_CLIENT.id,
        client_secret: 'typed-in-secret-value',
      })
      .expect(200);
    expect(unescapeHtml(again.text)).toContain('"error": "invalid_client"');
    expect(again.text).not.toContain('typed-in-secret-value');
  });

  it('shows an error response as an error', async () => {
    const res = await request(live().app).get(CALLBACK_DEBUG_PATH).query({ error: 'access_denied', state: 's1' }).expect(200);
    expect(res.text).toContain('answered <strong>access_denied</strong>');
  });

  it('refuses an exchange without the form token, sending nothing to the token endpoint', async () => {
    const res = await request(live().app).post(CALLBACK_DEBUG_PATH).type('form').send({ code: 'x', client_id: DEMO_CLIENT.id }).expect(403);
    expect(res.text).not.toContain('Token response');
  });

  it('is not served in production', async () => {
    const production = testApp({ NODE_ENV: 'production', SIGNING_KEYS_SECRET: 'p'.repeat(32) });
    await request(production).get(CALLBACK_DEBUG_PATH).expect(404);
    await request(production).post(CALLBACK_DEBUG_PATH).type('form').send({}).expect(404);
  });
});

describe('the demo client follows the server', () => {
  it('accepts the callback page of a server started on another port than the seed assumed', async () => {
    await ClientModel.deleteOne({ _id: DEMO_CLIENT.id } as never);
    await seedDemo('http://localhost:3000');
    // PUBLIC_URL left to its default: http://localhost and the port the server listens on.
    const server = await spawnServer({ MONGODB_URI: testDatabaseUriWithName(mongoose.connection.name) });
    try {
      const port = new URL(server.url).port;
      const redirectUri = `http://localhost:${port}${CALLBACK_DEBUG_PATH}`;
      const query = new URLSearchParams({ response_type: 'code', client_id: DEMO_CLIENT.id, redirect_uri: redirectUri, scope: 'openid' });
      const res = await fetch(`${server.url}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(new URL(res.headers.get('location')!, server.url).pathname).toBe('/login');
      const stored = await ClientModel.findById(DEMO_CLIENT.id).lean();
      expect(stored?.redirectUris).toEqual([
        redirectUri,
        `http://localhost:${port}/docs/assets/oauth2-redirect.html`,
        'http://localhost:3000/oauth/callback-debug',
        'http://localhost:3000/docs/assets/oauth2-redirect.html',
      ]);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('keeps the running server’s callback when the seed runs again from a terminal that lost its PORT', async () => {
    // The server started on 4123 added its callback; the seed in another terminal runs with 3000.
    await seedDemo('http://localhost:4123');
    await seedDemo('http://localhost:3000');
    const stored = await ClientModel.findById(DEMO_CLIENT.id).lean();
    expect(stored?.redirectUris).toEqual(
      expect.arrayContaining(['http://localhost:3000/oauth/callback-debug', 'http://localhost:4123/oauth/callback-debug']),
    );
    expect(stored?.redirectUris?.[0]).toBe('http://localhost:3000/oauth/callback-debug');
  });
});
