// Passkeys in Chromium with its virtual authenticator (DevTools protocol, WebAuthn domain): register
// one from the account page, use it as the second step after the password and alone, refuse a
// replayed answer, and give an openid-client relying party that asks for acr 2 a verified ID token
// that says so. The new pages are screenshot at 1280 and 390 px and checked by axe-core.
import type { Browser } from 'playwright-core';
import * as oidc from 'openid-client';
import { describeWithBrowser, lookAt, withAuthenticator } from '../helpers/browser';
import { useServerInBrowser } from '../helpers/browser-server';
import { createUser } from '../helpers/factories';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { PasskeyModel } from '../../src/factors/passkeys.model';
import { createPasskeys, PasskeyRefused } from '../../src/factors/passkeys.service';
import { csrfFrom } from '../helpers/oauth';
import { authorizationUrl, browserRelyingParty, toLoopback } from '../helpers/oidc';

describeWithBrowser('passkeys-browser')('passkeys in a real browser', () => {
  const live = useServerInBrowser(() => ({}), 'localhost');
  let browser: Browser;
  let base: string;
  let clientApp: FakeUpstream;
  beforeAll(async () => {
    ({ base, browser } = live());
    clientApp = await startFakeUpstream((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<!doctype html><title>Client</title><p>Signed in</p>');
    });
  });
  afterAll(() => clientApp?.close());

  /** A new browser with a virtual authenticator, signed in with the person's password at /home. */
  async function signedInBrowser(person: { email: string; password: string }) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await withAuthenticator(page);
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/home`);
    return { context, page };
  }

  it('registers a passkey, signs in with it after the password and alone, and gives acr 2 to a client that asks', async () => {
    const person = await createUser({ firstName: 'Hedy', lastName: 'Lamarr' });
    const { context, page } = await signedInBrowser(person);
    await page.goto(`${base}/account`);
    await page.getByLabel('Name of the new passkey').fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    // The first factor: the recovery codes, shown once.
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    await lookAt(page, 'passkeys-recovery-codes');
    await page.getByRole('link', { name: 'Back to your account' }).click();
    expect(await page.textContent('main')).toContain('Laptop');
    await lookAt(page, 'passkeys-account');
    await page.goto(`${base}/account/totp`);
    await page.getByRole('heading', { name: 'Set up an authenticator app' }).waitFor();
    await lookAt(page, 'passkeys-totp-enrol');

    // Signed out, the password now leads to the second step.
    await page.goto(`${base}/home`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/login/verify`);
    await page.getByRole('button', { name: 'Use your passkey' }).waitFor();
    await lookAt(page, 'passkeys-second-step');
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    await page.waitForURL(`${base}/home`);

    // Alone: the passkey button on the sign-in page. Its answer, sent again, is refused.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/login`);
    await lookAt(page, 'passkeys-login');
    const answer = page.waitForRequest((request) => request.url() === `${base}/login/passkey` && request.method() === 'POST');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${base}/home`);
    // From a browser that is not signed in: the same form token, the same answer.
    const cookie = (await context.cookies(base))
      .filter(({ name }) => name === 'csrf')
      .map(({ name, value }) => `${name}=${value}`)
      .join('; ');
    const replayed = await fetch(toLoopback(`${base}/login/passkey`), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: cookie },
      body: (await answer).postData()!,
    });
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as { error: string }).error).toBe('This passkey request has expired or was used already. Try again.');

    // A relying party asking for acr 2 gets it, in an ID token openid-client verifies.
    const redirectUri = `${clientApp.url}/cb`;
    const config = await browserRelyingParty(base, person, { client_name: 'Strong App', redirect_uris: [redirectUri] });
    const nonce = oidc.randomNonce();
    const { url, verifier } = await authorizationUrl(config, { redirect_uri: redirectUri, scope: 'openid', nonce, acr_values: '2' });
    await page.goto(url.href);
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
    await context.close();
  }, 120_000);

  it('refuses an answer made for another origin, and a signature counter that went back', async () => {
    const person = await createUser();
    const { context, page } = await signedInBrowser(person);
    await page.goto(`${base}/account`);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    await page.goto(`${base}/home`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/login`);

    // The browser's answer, kept from the server: checked by a relying party at another origin.
    let held: string | undefined;
    await page.route(`${base}/login/passkey`, async (route) => {
      held = route.request().postData() ?? undefined;
      await route.abort();
    });
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByText('The passkey did not work.').or(page.getByText('Failed to fetch')).first().waitFor();
    const elsewhere = createPasskeys({ publicUrl: base.replace('localhost', 'passkeys.localhost'), rpName: 'elsewhere' });
    const { response } = JSON.parse(held!) as { response: Parameters<typeof elsewhere.authenticate>[0] };
    await expect(elsewhere.authenticate(response)).rejects.toBeInstanceOf(PasskeyRefused);
    await page.unroute(`${base}/login/passkey`);

    // A stored counter ahead of the authenticator's: a cloned key, refused, and nobody signed in.
    await PasskeyModel.updateMany({ userId: person.id }, { $set: { counter: 1_000_000 } });
    await page.goto(`${base}/login`);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /copied/ })
      .waitFor();
    await page.goto(`${base}/home`);
    await page.waitForURL(/\/login/);
    expect(csrfFrom(await page.content())).toBeTruthy();
    await context.close();
  }, 120_000);
});
