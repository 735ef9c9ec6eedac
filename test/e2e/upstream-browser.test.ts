// Signing in here through another instance of this server as the upstream OpenID provider, in
// Chromium: the upstream runs as its own process on its own database (a client registered on it by
// RFC 7591), this server names it in UPSTREAM_PROVIDERS and finds it by discovery; real ID tokens,
// real consent. The first sign-in makes an account, the next makes none; an account here with the
// same email is linked only after its password; Unlink works; a person with an authenticator app
// here is asked for its code. The changed pages are screenshot at 1280 and 390 px and checked by axe-core.
import mongoose, { type Connection } from 'mongoose';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../helpers/ports';
import { UserModel } from '../../src/users/users.model';
import { UpstreamLinkModel } from '../../src/upstream/upstream-links.model';
import { describeWithBrowser, lookAt } from '../helpers/browser';
import { useServerInBrowser } from '../helpers/browser-server';
import { movableClock } from '../helpers/clock';
import { testDatabaseUriWithName } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { totpCode } from '../helpers/factors';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

// Not 127.0.0.1, where the upstream is: the two keep their cookies apart by host name.
const HOST = 'localhost';
const PASSWORD = 'upstream-password';

describeWithBrowser('upstream-browser')('signing in through another instance as the OpenID provider', () => {
  let upstream: ServerProcess;
  let client: { client_id: string; client_secret: string };
  let port = 0;
  const clock = movableClock();

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${upstream.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  let upstreamDatabase: Connection;
  /** A person with an account on the upstream, who confirmed their address there (its ID tokens say email_verified). */
  const upstreamPerson = async (email: string, firstName = 'Ada') => {
    const res = await post('/users', { email, password: PASSWORD, firstName, lastName: 'Upstream' });
    expect(res.status).toBe(201);
    await upstreamDatabase.collection('users').updateOne({ email }, { $set: { emailVerified: true } });
    return { email, password: PASSWORD };
  };

  beforeAll(async () => {
    port = await freePort();
    const uri = testDatabaseUriWithName();
    upstreamDatabase = await mongoose.createConnection(uri).asPromise();
    upstream = await spawnServer((upstreamPort) => ({
      MONGODB_URI: uri,
      PUBLIC_URL: `http://127.0.0.1:${upstreamPort}`,
    }));
    // The operator registers this server as a client of the upstream, with its callback.
    const owner = await upstreamPerson('operator@upstream.example');
    const { accessToken } = (await (await post('/auth', owner)).json()) as { accessToken: string };
    const registered = await post(
      '/oauth/register',
      {
        client_name: 'Downstream',
        redirect_uris: [`http://${HOST}:${port}/auth/upstream/twin/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      { Authorization: `Bearer ${accessToken}` },
    );
    expect(registered.status).toBe(201);
    client = (await registered.json()) as typeof client;
  }, 90_000);
  afterAll(async () => {
    await upstream?.stop();
    await upstreamDatabase?.dropDatabase();
    await upstreamDatabase?.close();
  });

  const live = useServerInBrowser(
    () => ({
      PORT: String(port),
      UPSTREAM_PROVIDERS: JSON.stringify([
        { id: 'twin', name: 'Twin ID', issuer: upstream.url, client_id: client.client_id, client_secret: client.client_secret },
      ]),
    }),
    HOST,
    clock,
  );
  let browser: Browser;
  let base: string;
  beforeAll(() => {
    ({ browser, base } = live());
  });

  const newPage = async (): Promise<Page> => (await browser.newContext()).newPage();

  /** From this server's sign-in page, through the upstream's sign-in and consent (when it asks), back here. */
  async function throughUpstream(page: Page, person: { email: string; password: string }) {
    await page.goto(`${base}/login`);
    await page.getByRole('link', { name: 'Sign in with Twin ID' }).click();
    await page.waitForURL((url) => url.host !== `${HOST}:${port}` || url.pathname !== '/login');
    if (page.url().startsWith(`${upstream.url}/login`)) {
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    }
    await page.waitForURL((url) => url.host === `${HOST}:${port}` || url.pathname.startsWith('/oauth/authorize'));
    if (page.url().startsWith(upstream.url)) await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.host === `${HOST}:${port}` && !url.pathname.startsWith('/auth/upstream'));
  }

  it('makes an account on the first sign-in and none on the next', async () => {
    const person = await upstreamPerson('adaupstreamwithalongaddress@people.example');
    const page = await newPage();
    await page.goto(`${base}/login`);
    await lookAt(page, 'upstream-login');
    await throughUpstream(page, person);
    expect(new URL(page.url()).pathname).toBe('/home');
    await page.getByText('You are signed in as Ada Upstream').waitFor();
    expect(await UserModel.countDocuments({ email: person.email })).toBe(1);
    const users = await UserModel.countDocuments();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/login`);
    // The upstream remembers the person and their consent: straight back, signed in.
    await throughUpstream(page, person);
    expect(new URL(page.url()).pathname).toBe('/home');
    expect(await UserModel.countDocuments()).toBe(users);
    await page.goto(`${base}/account`);
    await page.getByText('Twin ID: linked').waitFor();
    // Made through the provider, the account has no password: nothing to change, a way to set one.
    await page.getByText('Your account has no password').waitFor();
    expect(await page.getByRole('button', { name: 'Change password' }).count()).toBe(0);
    await lookAt(page, 'upstream-account');
    await page.context().close();
  });

  it('links an account here with the same email only after its password, and unlinks it', async () => {
    const here = await createUser({ email: 'linked@people.example', password: 'the-password-here' });
    const person = await upstreamPerson(here.email, 'Grace');
    const page = await newPage();
    await throughUpstream(page, person);
    expect(new URL(page.url()).pathname).toBe('/login/link');
    await lookAt(page, 'upstream-link');
    expect(await UpstreamLinkModel.countDocuments({ userId: here.id })).toBe(0);

    // Cancel ends the pending link at once: the link page is gone, nothing linked.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(`${base}/login`);
    await page.goto(`${base}/login/link`);
    await page.waitForURL(`${base}/login`);
    await throughUpstream(page, person);
    expect(new URL(page.url()).pathname).toBe('/login/link');

    await page.getByLabel(`Password for ${here.email}`).fill('wrong-password');
    await page.getByRole('button', { name: 'Link and sign in' }).click();
    await page.getByText('Wrong password.').waitFor();
    expect(await UpstreamLinkModel.countDocuments({ userId: here.id })).toBe(0);
    await page.getByLabel(`Password for ${here.email}`).fill(here.password);
    await page.getByRole('button', { name: 'Link and sign in' }).click();
    await page.waitForURL(`${base}/home`);
    expect(await UpstreamLinkModel.countDocuments({ userId: here.id })).toBe(1);

    await page.goto(`${base}/account`);
    await page.getByRole('button', { name: 'Unlink Twin ID' }).click();
    await page.getByText('The provider is unlinked').waitFor();
    expect(await UpstreamLinkModel.countDocuments({ userId: here.id })).toBe(0);
    await page.context().close();
  });

  it('asks a person with an authenticator app here for its code after the upstream', async () => {
    const person = await upstreamPerson('second-factor@people.example');
    const page = await newPage();
    await throughUpstream(page, person);
    await page.goto(`${base}/account/totp`);
    const key = ((await page.locator('code').first().textContent()) ?? '').replace(/ /g, '');
    await page.getByLabel('Code from the app').fill(totpCode(key, clock.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    await page.goto(`${base}/home`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/login`);

    clock.move(30_000);
    await throughUpstream(page, person);
    expect(new URL(page.url()).pathname).toBe('/login/verify');
    await page.getByLabel('Code from your authenticator app, or a recovery code').fill(totpCode(key, clock.now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${base}/home`);
    await page.context().close();
  });
});
