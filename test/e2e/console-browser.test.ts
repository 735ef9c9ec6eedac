// The operator's console in Chromium: an admin who signed in with an authenticator app finds a
// person, ends their sessions (the person's browser is signed out at once), resets their factors,
// disables them (their tokens stop working), rotates the keys (the old key still verifies an earlier
// ID token), and reads each of these in Events. Every console page is screenshot at 1280 and 390 px
// and checked by axe-core.
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type { Browser, Page } from 'playwright-core';
import * as clientsService from '../../src/oauth/clients/clients.service';
import * as usersService from '../../src/users/users.service';
import { describeWithBrowser, lookAt } from '../helpers/browser';
import { useServerInBrowser } from '../helpers/browser-server';
import { createUser } from '../helpers/factories';
import { operatorInBrowser, signInInBrowser } from '../helpers/browser-people';

describeWithBrowser('console-browser')("the operator's console in a real browser", () => {
  const live = useServerInBrowser();
  let browser: Browser;
  let base: string;
  beforeAll(() => {
    ({ browser, base } = live());
  });

  const newPage = async (): Promise<Page> => (await browser.newContext()).newPage();
  const signIn = (page: Page, person: { email: string; password: string }) => signInInBrowser(page, base, person);
  /** The operator: an admin who signs in and turns on an authenticator app (a second factor, just now). */
  const operatorPage = async (name: { firstName?: string; lastName?: string } = {}): Promise<Page> =>
    (await operatorInBrowser(browser, base, name)).page;
  const form = (body: Record<string, string>) => ({
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });

  it('finds a person, ends their sessions, resets their factors, disables them, rotates the keys, and reads it all in Events', async () => {
    // A long address with no place to break: the pages must not scroll sideways at 390 px (lookAt).
    const target = await createUser({
      firstName: 'Grace',
      lastName: 'Target',
      email: `gracetargetwithalongaddress${Date.now()}@example.com`,
    });
    // The person's application holds an access token and an ID token.
    const client = await clientsService.register(target.id, {
      name: 'Their app',
      website: 'https://app.example.com',
      redirect_uri: 'https://app.example.com/cb',
      grants: ['password'],
    });
    const grant = await fetch(
      `${base}/oauth/token`,
      form({
        grant_type: 'password',
        client_id: client.client_id,
        client_secret: client.client_secret,
        username: target.email,
        password: target.password,
        scope: 'openid read',
      }),
    );
    const tokens = (await grant.json()) as { access_token: string; id_token: string };
    const api = () => fetch(`${base}/api/user`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect((await api()).status).toBe(200);
    const theirs = await newPage();
    await signIn(theirs, target);

    const page = await operatorPage({ firstName: 'Olga', lastName: 'Operator' });

    await page.goto(`${base}/admin`);
    await page.waitForURL(`${base}/admin/people`);
    await page.getByLabel('Email or name starts with').fill(target.email);
    await page.getByRole('button', { name: 'Search' }).click();
    await lookAt(page, 'console-people');
    await page.getByRole('link', { name: target.email }).click();
    await page.getByRole('heading', { name: target.email }).waitFor();
    await lookAt(page, 'console-person');
    // An operator gives the admin role here (and takes it back): an event naming them, no flag involved.
    await page.getByLabel('Give a role').selectOption('admin');
    await page.getByRole('button', { name: 'Give', exact: true }).click();
    await page.getByText('The role is given').waitFor();
    await page.getByRole('button', { name: 'Take admin away' }).click();
    await page.getByText('The role is taken away').waitFor();

    await page.getByRole('button', { name: 'End all sessions' }).click();
    await page.getByText('Every browser of this person is signed out.').waitFor();
    await theirs.goto(`${base}/home`);
    expect(new URL(theirs.url()).pathname).toBe('/login');

    await page.getByRole('button', { name: 'Reset second factors' }).click();
    await page.getByText('The second factors are removed').waitFor();
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('The account is disabled').waitFor();
    expect((await api()).status).toBe(401);

    await page.goto(`${base}/admin/keys`);
    await page.getByRole('button', { name: 'Rotate now' }).click();
    await page.getByText('New keys are current here now').waitFor();
    await lookAt(page, 'console-keys');
    const jwks = createLocalJWKSet((await (await fetch(`${base}/oauth/jwks`)).json()) as JSONWebKeySet);
    expect((await jwtVerify(tokens.id_token, jwks)).payload.sub).toBe(target.id);

    await page.goto(`${base}/admin/applications`);
    await page.getByText('Their app').waitFor();
    await lookAt(page, 'console-applications');

    await page.goto(`${base}/admin/events?person=${target.id}`);
    for (const words of ['every browser signed out', 'every second factor reset', 'account disabled', 'role-given']) {
      await page.locator('li', { hasText: words }).first().waitFor();
    }
    // People are named by their email, and the filters have labels one can use.
    await page.getByRole('link', { name: target.email }).first().waitFor();
    expect((await page.getByLabel('Person id').boundingBox())!.width).toBeGreaterThan(200);
    await lookAt(page, 'console-events');
    await page.context().close();
    await theirs.context().close();
  }, 90_000);

  it('registers an application in the console, a person signs in to it, and the application uses its secret', async () => {
    const page = await operatorPage();

    // The application's redirect URI is this server's development page that shows what came back.
    const redirectUri = `${base}/oauth/callback-debug`;
    await page.goto(`${base}/admin/applications`);
    await page.getByRole('link', { name: 'Register an application' }).click();
    await page.getByLabel('Name').fill('Timesheets');
    await page.getByLabel('Website').fill('https://timesheets.example.com');
    await page.getByLabel('Redirect URIs').fill(redirectUri);
    await page.getByLabel('authorization_code').check();
    await page.getByLabel('refresh_token').check();
    await lookAt(page, 'console-application-new');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('heading', { name: 'Application registered' }).waitFor();
    await lookAt(page, 'console-application-secret');
    const clientId = (await page.locator('code').nth(0).textContent())!;
    const secret = (await page.locator('code').nth(1).textContent())!;
    await page.getByRole('link', { name: 'To the application' }).click();
    await page.getByRole('heading', { name: 'Timesheets' }).waitFor();
    await expect(page.content()).resolves.not.toContain(secret);

    // A person signs in to it: sign-in, consent, the code back at the redirect URI.
    const person = await createUser();
    const theirs = await newPage();
    const authorize = new URL(`${base}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'openid read',
      state: 'st',
    }).toString();
    await theirs.goto(authorize.href);
    await theirs.getByLabel('Email').fill(person.email);
    await theirs.getByLabel('Password').fill(person.password);
    await theirs.getByRole('button', { name: 'Sign in', exact: true }).click();
    await theirs.getByRole('button', { name: 'Approve' }).click();
    await theirs.waitForURL((url) => url.pathname === '/oauth/callback-debug');
    const code = new URL(theirs.url()).searchParams.get('code')!;
    const tokens = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
    });
    expect(tokens.status).toBe(200);
    const { id_token } = (await tokens.json()) as { id_token: string };
    const jwks = createLocalJWKSet((await (await fetch(`${base}/oauth/jwks`)).json()) as JSONWebKeySet);
    expect((await jwtVerify(id_token, jwks, { audience: clientId })).payload.sub).toBe(person.id);

    // The console shows who granted it, and the registration in Events.
    await page.reload();
    await page.getByRole('link', { name: person.email }).waitFor();
    await lookAt(page, 'console-application');
    await page.goto(`${base}/admin/events?application=${clientId}`);
    await page.getByText('Timesheets registered', { exact: false }).waitFor();
    await page.context().close();
    await theirs.context().close();
  });

  it('refuses a person without the admin role', async () => {
    const person = await createUser();
    const page = await newPage();
    await signIn(page, person);
    const res = await page.goto(`${base}/admin/people`);
    expect(res?.status()).toBe(403);
    expect(res?.headers()['cache-control']).toBe('no-store');
    await page.getByRole('heading', { name: 'Operators only' }).waitFor();
    await lookAt(page, 'console-operators-only');
    await page.getByRole('link', { name: 'Home' }).click();
    await page.waitForURL(`${base}/home`);
    expect(await page.getByRole('link', { name: 'The operator’s console' }).count()).toBe(0);
    await page.context().close();
  });

  it('shows an admin without a second factor the way to add one, and the console from /home and /account', async () => {
    const admin = await createUser();
    await usersService.setRole(admin.id, 'admin', true);
    const page = await newPage();
    await signIn(page, admin);
    await page.getByRole('link', { name: 'The operator’s console' }).click();
    await page.getByRole('heading', { name: 'Second factor needed' }).waitFor();
    await lookAt(page, 'console-second-factor-needed');
    await page.getByRole('link', { name: 'Set up an authenticator app' }).click();
    await page.waitForURL(`${base}/account/totp`);
    await page.goto(`${base}/account`);
    await page.getByRole('link', { name: 'The operator’s console' }).waitFor();
    await page.context().close();
  });
});
