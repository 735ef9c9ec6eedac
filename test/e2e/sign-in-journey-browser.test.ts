// The sign-in journey (sign-in/interaction.ts) as a person meets it in Chromium: a passkey alone
// inside an application's authorization request goes back to the application; a step-up says why it
// asks and carries out what asked for it; the activity says "Signed in" once, after the last factor;
// the app's key survives a reload; a passkey-only person is offered the passkey first, a copied
// passkey is refused in people's words; an IPv6 address is shown readably. Time moves on the
// server's clock, never by waiting. The changed pages are screenshot at 1280 and 390 px and checked by axe-core.
import type { Browser, Page } from 'playwright-core';
import * as oidc from 'openid-client';
import { PasskeyModel } from '../../src/factors/passkeys.model';
import { describeWithBrowser, lookAt, withAuthenticator } from '../helpers/browser';
import { useServerInBrowser } from '../helpers/browser-server';
import { movableClock } from '../helpers/clock';
import { totpCode } from '../helpers/factors';
import { createUser } from '../helpers/factories';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { authorizationUrl, browserRelyingParty } from '../helpers/oidc';

const STEP = 30_000;

describeWithBrowser('sign-in-journey-browser')('the sign-in journey in a real browser', () => {
  const clock = movableClock();
  const live = useServerInBrowser(() => ({}), 'localhost', clock);
  let browser: Browser;
  let base: string;
  let port: number;
  let clientApp: FakeUpstream;
  beforeAll(async () => {
    ({ base, browser, port } = live());
    clientApp = await startFakeUpstream((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<!doctype html><title>Client</title><p>Signed in</p>');
    });
  });
  afterAll(() => clientApp?.close());

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await withAuthenticator(page);
    return page;
  }

  async function password(page: Page, person: { email: string; password: string }, at = `${base}/login`) {
    if (!page.url().startsWith(at)) await page.goto(at);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  async function addPasskey(page: Page) {
    await page.goto(`${base}/account`);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
  }

  /** A new person who added a passkey in a new browser with an authenticator, then signed out. */
  async function personWithPasskey() {
    const person = await createUser();
    const page = await newPage();
    await password(page, person);
    await page.waitForURL(`${base}/home`);
    await addPasskey(page);
    await signOut(page);
    return { person, page };
  }

  async function signOut(page: Page) {
    await page.goto(`${base}/home`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/login`);
  }

  /** The "Signed in" entries of the account's activity. */
  async function signedInEntries(page: Page): Promise<number> {
    await page.goto(`${base}/account`);
    const activity = (await page.textContent('main'))!.split('Recent security activity')[1] ?? '';
    return activity.match(/Signed in,/g)?.length ?? 0;
  }

  it('returns a passkey-alone sign-in to the application that asked, with acr 2', async () => {
    const { person, page } = await personWithPasskey();

    const redirectUri = `${clientApp.url}/cb`;
    const config = await browserRelyingParty(base, person, { client_name: 'Passwordless App', redirect_uris: [redirectUri] });
    const nonce = oidc.randomNonce();
    const { url, verifier } = await authorizationUrl(config, { redirect_uri: redirectUri, scope: 'openid', nonce });
    await page.goto(url.href);
    await page.waitForURL(/\/login\?return_to=/);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((callback) => callback.toString().startsWith(redirectUri));
    const tokens = await oidc.authorizationCodeGrant(config, new URL(page.url()), {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims.acr).toBe('2');
    expect(claims.amr).toEqual([expect.stringMatching(/^(hwk|swk)$/)]);
    await page.context().close();
  }, 120_000);

  const keyOf = async (page: Page) => (await page.locator('main code').first().textContent())!.replace(/ /g, '');

  /** A signed-in person who has just turned the authenticator app on; the app's key. */
  async function personWithApp(page: Page, person: { email: string; password: string }): Promise<string> {
    await password(page, person);
    await page.waitForURL(`${base}/home`);
    await page.goto(`${base}/account/totp`);
    const key = await keyOf(page);
    await page.getByLabel('Code from the app').fill(totpCode(key, clock.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    return key;
  }

  it('keeps the authenticator app’s key over a reload until it is confirmed', async () => {
    const person = await createUser();
    const page = await newPage();
    await password(page, person);
    await page.waitForURL(`${base}/home`);
    await page.goto(`${base}/account/totp`);
    const key = await keyOf(page);
    await page.reload();
    expect(await keyOf(page)).toBe(key);
    await page.getByLabel('Code from the app').fill(totpCode(key, clock.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    await page.context().close();
  }, 60_000);

  it('records "Signed in" once, after the last factor, and a wrong code as a failed sign-in', async () => {
    const person = await createUser();
    const page = await newPage();
    const key = await personWithApp(page, person);
    expect(await signedInEntries(page)).toBe(1);
    await signOut(page);
    await password(page, person);
    await page.waitForURL(`${base}/login/verify`);
    await page.getByLabel('Code from your authenticator app, or a recovery code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Code from your authenticator app, or a recovery code').fill(totpCode(key, clock.now() + STEP));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${base}/home`);
    expect(await signedInEntries(page)).toBe(2);
    expect(await page.textContent('main')).toContain('Failed sign-in attempt');
    await page.context().close();
  }, 60_000);

  it('asks a person whose second factor is not recent again, says why, and then turns the app off', async () => {
    const person = await createUser();
    const page = await newPage();
    const key = await personWithApp(page, person);
    await signOut(page);
    await password(page, person);
    await page.waitForURL(`${base}/login/verify`);
    await page.getByLabel('Code from your authenticator app, or a recovery code').fill(totpCode(key, clock.now() + STEP));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${base}/home`);
    // Eleven minutes on, turning the app off asks again, says why, and then does it.
    clock.move(11 * 60_000);
    try {
      await page.goto(`${base}/account`);
      await page.getByRole('button', { name: 'Turn off the authenticator app' }).click();
      await page.waitForURL(`${base}/login/verify`);
      await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
      const asking = (await page.textContent('main'))!;
      expect(asking).toContain('To turn off the authenticator app');
      expect(asking).not.toContain('Start again');
      expect(await page.getByRole('link', { name: 'Cancel' }).getAttribute('href')).toBe('/account');
      await lookAt(page, 'journey-step-up');
      await page.getByLabel('Code from your authenticator app, or a recovery code').fill(totpCode(key, clock.now() + STEP));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL(`${base}/account?done=totp-removed`);
      const account = (await page.textContent('main'))!;
      expect(account).toContain('The authenticator app is turned off.');
      expect(account).toContain('Confirmed with a second factor');
      await lookAt(page, 'journey-account-totp-off');
      // The confirmation is no new sign-in.
      expect(await signedInEntries(page)).toBe(2);
    } finally {
      clock.move(-11 * 60_000);
    }
    await page.context().close();
  }, 120_000);

  it('offers a passkey-only person the passkey first, and refuses a copied one in people’s words', async () => {
    const { person, page } = await personWithPasskey();
    await password(page, person);
    await page.waitForURL(`${base}/login/verify`);
    const first = page.locator('main button:not([hidden])').first();
    expect(await first.textContent()).toBe('Use your passkey');
    expect(await first.getAttribute('class')).toBeNull();
    await page.getByLabel('Or a recovery code').waitFor();
    await lookAt(page, 'journey-passkey-first');

    // A stored counter ahead of the authenticator's: a copied passkey.
    await PasskeyModel.updateMany({ userId: person.id }, { $set: { counter: 1_000_000 } });
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    const status = page.getByRole('status').filter({ hasText: /copied/ });
    await status.waitFor();
    expect(await status.textContent()).not.toMatch(/Response counter|expected/);
    await page.context().close();
  }, 120_000);

  it('shows an IPv6 address as people write it', async () => {
    const person = await createUser();
    const page = await (await browser.newContext()).newPage();
    const v6 = `http://[::1]:${port}`;
    await password(page, person, `${v6}/login`);
    await page.waitForURL(`${v6}/home`);
    await page.goto(`${v6}/account`);
    const account = (await page.textContent('main'))!;
    expect(account).toContain('From ::1.');
    expect(account).not.toContain('0000:');
    await page.context().close();
  }, 60_000);
});
