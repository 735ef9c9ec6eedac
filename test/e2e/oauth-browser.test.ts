// Drives the real pages in headless Chromium (Debian's, through playwright-core): sign in, consent,
// receive the code at the client's callback, exchange it and call /api/user.
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import mongoose from 'mongoose';
import * as clientsService from '../../src/oauth/clients/clients.service';
import { start, type RunningServer } from '../../src/server';
import { testConfig } from '../helpers/app';
import { describeWithBrowser, launchChromium } from '../helpers/browser';
import { testDatabaseUriWithName } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { clientSecretPost } from '../helpers/oauth';

describeWithBrowser('oauth-browser')('OAuth code flow in a real browser', () => {
  let server: RunningServer;
  let clientApp: FakeUpstream;
  let browser: Browser;

  beforeAll(async () => {
    server = await start(testConfig({ PORT: '0', WEATHER_PORT: 'off', MONGODB_URI: testDatabaseUriWithName() }));
    clientApp = await startFakeUpstream((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<!doctype html><title>Client</title><p>Signed in with the API</p>');
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await clientApp?.close();
    await mongoose.connection.db?.dropDatabase().catch(() => undefined);
    await server?.stop();
  });

  it('signs in, approves, receives the code, exchanges it and reads /api/user', async () => {
    const base = `http://127.0.0.1:${server.port}`;
    const user = await createUser({ firstName: 'Ada', lastName: 'Lovelace' });
    const redirectUri = `${clientApp.url}/callback`;
    const client = await clientsService.register(undefined, {
      name: 'Browser Test App',
      website: clientApp.url,
      redirect_uri: redirectUri,
    });

    const page = await browser.newPage();
    const authorizeUrl = `${base}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: 'read',
      state: 'browser-state',
    }).toString()}`;
    await page.goto(authorizeUrl);
    expect(new URL(page.url()).pathname).toBe('/login');

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Authorize Browser Test App?' }).waitFor();
    expect(await page.getByRole('listitem').first().textContent()).toContain('read');
    await page.screenshot({ path: path.join(tmpdir(), 'oauth-consent.png') });

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.toString().startsWith(redirectUri));
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe('browser-state');
    const code = callback.searchParams.get('code')!;
    expect(code).toBeTruthy();
    // The client app received it (Chromium also asks it for a favicon, so look for the callback).
    expect(clientApp.requests.find((r) => r.url.pathname === '/callback')?.url.searchParams.get('code')).toBe(code);

    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        ...clientSecretPost(client),
        code,
        redirect_uri: redirectUri,
      }),
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };

    const me = await fetch(`${base}/api/user`, { headers: { Authorization: `Bearer ${accessToken}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ _id: user.id, email: user.email, firstName: 'Ada', lastName: 'Lovelace' });
  }, 60_000);
});
