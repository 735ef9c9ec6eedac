// Drives the real pages in headless Chromium (Debian's, through playwright-core): sign in, consent,
// receive the code at the client's callback, exchange it and call /api/user; and the same as an
// OpenID Connect sign-in by openid-client, from dynamic registration to the validated ID token.
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import * as oidc from 'openid-client';
import * as clientsService from '../../src/oauth/clients/clients.service';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import { accessibilityViolations, describeWithBrowser, lookAt } from '../helpers/browser';
import { useServerInBrowser } from '../helpers/browser-server';
import { createUser } from '../helpers/factories';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { clientSecretPost } from '../helpers/oauth';
import { authorizationUrl, insecure } from '../helpers/oidc';

describeWithBrowser('oauth-browser')('OAuth code flow in a real browser', () => {
  const live = useServerInBrowser();
  let clientApp: FakeUpstream;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    ({ base, browser } = live());
    clientApp = await startFakeUpstream((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<!doctype html><title>Client</title><p>Signed in with the API</p>');
    });
  });

  afterAll(async () => {
    await clientApp?.close();
  });

  /** The person's access token from POST /auth: what RFC 7591 registration takes. */
  async function accessTokenOf(person: { email: string; password: string }): Promise<string> {
    const login = await fetch(`${base}/auth`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: person.email, password: person.password }),
    });
    return ((await login.json()) as { accessToken: string }).accessToken;
  }

  it('signs in, approves, receives the code, exchanges it and reads /api/user', async () => {
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
    // Looked at by a person on every change of the page: wide and phone-sized.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(tmpdir(), 'oauth-consent-1280.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(tmpdir(), 'oauth-consent-390.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);

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

  it('signs in with OpenID Connect: registration, code + PKCE + nonce, a validated ID token, userinfo', async () => {
    const person = await createUser({ firstName: 'Grace', lastName: 'Hopper' });
    const accessToken = await accessTokenOf(person);
    const redirectUri = `${clientApp.url}/oidc-callback`;
    const config = await oidc.dynamicClientRegistration(
      new URL(base),
      {
        client_name: 'OIDC Browser App',
        redirect_uris: [redirectUri],
        policy_uri: `${clientApp.url}/privacy`,
        tos_uri: `${clientApp.url}/terms`,
      },
      undefined,
      { ...insecure, initialAccessToken: accessToken },
    );
    const nonce = oidc.randomNonce();
    const { url, verifier } = await authorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      // One claim beyond the scopes: the consent page names it.
      claims: JSON.stringify({ userinfo: { phone_number: null } }),
      nonce,
      state: 'oidc',
    });

    const page = await browser.newPage();
    await page.goto(url.href);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Authorize OIDC Browser App?' }).waitFor();
    expect(await page.getByRole('list').textContent()).toContain('See your email address');
    await page.getByRole('link', { name: 'terms of service' }).waitFor();
    expect(await page.getByRole('list').textContent()).toContain('also: phone number');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: path.join(tmpdir(), `oidc-consent-${width}.png`), fullPage: true });
      expect(await accessibilityViolations(page)).toEqual([]);
    }
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((callback) => callback.toString().startsWith(redirectUri));

    const tokens = await oidc.authorizationCodeGrant(config, new URL(page.url()), {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: 'oidc',
      idTokenExpected: true,
    });
    expect(tokens.claims()).toMatchObject({ iss: base, sub: person.id, acr: '1' });
    expect(await oidc.fetchUserInfo(config, tokens.access_token, person.id)).toMatchObject({
      given_name: 'Grace',
      name: 'Grace Hopper',
      email: person.email,
    });
  }, 60_000);

  it('takes an authorization request POSTed by the client page and answers by form_post, with JavaScript and without', async () => {
    const person = await createUser({ firstName: 'Katherine', lastName: 'Johnson' });
    const redirectUri = `${clientApp.url}/form-post-callback`;
    const client = await clientsService.register(undefined, { name: 'Form Post App', website: clientApp.url, redirect_uri: redirectUri });
    // The client's own page: a form that POSTs the authorization request (OIDC Core 3.1.2.1), with a
    // state that needs escaping on the way back.
    const state = `st<"&'>`;
    const request: Record<string, string> = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: 'openid',
      nonce: 'fp-nonce',
      response_mode: 'form_post',
      state,
    };
    const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    clientApp.handle((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      if (req.url.pathname === '/start') {
        const inputs = Object.entries(request).map(([name, value]) => `<input type="hidden" name="${name}" value="${escape(value)}">`);
        res.end(
          `<!doctype html><title>Client</title><form method="post" action="${base}/oauth/authorize">${inputs.join('')}<button>Sign in with the API</button></form>`,
        );
      } else res.end('<!doctype html><title>Client</title><p>Signed in with the API</p>');
    });
    const posted = () => clientApp.requests.filter((r) => r.method === 'POST' && r.url.pathname === '/form-post-callback');
    /** Waits (bounded) until the client has received `count` posts; on failure says where the browser is. */
    const received = async (count: number, on: Page) => {
      for (let waited = 0; posted().length < count && waited < 45_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
      if (posted().length < count) {
        const heading = await on
          .locator('h1')
          .first()
          .textContent({ timeout: 1000 })
          .catch(() => null);
        throw new Error(`the client received ${posted().length} of ${count} posts; the browser shows ${on.url()} (${heading})`);
      }
    };

    const page = await browser.newPage();
    await page.goto(`${clientApp.url}/start`);
    await page.getByRole('button', { name: 'Sign in with the API' }).click();
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    // The form_post page posts itself (its script allowed by hash) to the redirect URI.
    await received(1, page);
    const first = new URLSearchParams(posted()[0].body);
    expect(first.get('code')).toBeTruthy();
    expect(first.get('state')).toBe(state);
    expect(first.get('iss')).toBe(base);

    // Without JavaScript the same page waits for Continue; remembered consent answers at once.
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    await noScript.addCookies(await page.context().cookies());
    const manual = await noScript.newPage();
    await manual.goto(`${clientApp.url}/start`);
    await manual.getByRole('button', { name: 'Sign in with the API' }).click();
    await manual.getByRole('heading', { name: 'Returning to the application' }).waitFor();
    // Looked at wide and phone-sized; axe runs on the same markup in a page that may run it (its
    // script, which only submits, taken out so the copy stays put).
    const markup = (await manual.content()).replace(/<script>[^<]*<\/script>/, '');
    const checked = await browser.newPage();
    await checked.setContent(markup);
    for (const width of [1280, 390]) {
      await manual.setViewportSize({ width, height: 800 });
      await manual.screenshot({ path: path.join(tmpdir(), `oauth-form-post-${width}.png`) });
      await checked.setViewportSize({ width, height: 800 });
      expect(await accessibilityViolations(checked)).toEqual([]);
    }
    await checked.close();
    await manual.getByRole('button', { name: 'Continue' }).click();
    await received(2, manual);
    expect(posted()).toHaveLength(2);
    expect(new URLSearchParams(posted()[1].body).get('state')).toBe(state);
    await noScript.close();
  }, 120_000);

  it('lets a browser app registered as a public client exchange its code and read userinfo across origins (CORS)', async () => {
    const person = await createUser({ firstName: 'Dorothy', lastName: 'Vaughan' });
    const accessToken = await accessTokenOf(person);
    const redirectUri = `${clientApp.url}/spa-callback`;
    const registered = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ client_name: 'Single Page App', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const verifier = oidc.randomPKCECodeVerifier();
    const authorize = new URL(`${base}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    const page = await browser.newPage();
    await page.goto(authorize.href);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.toString().startsWith(redirectUri));
    // On the app's own origin now, as its script would: the token endpoint, then userinfo.
    const code = new URL(page.url()).searchParams.get('code')!;
    const seen = await page.evaluate(
      async ({ base, clientId, code, redirectUri, verifier }) => {
        const token = await fetch(`${base}/oauth/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            client_id: clientId,
            code,
            redirect_uri: redirectUri,
            code_verifier: verifier,
          }),
        }).then((res) => res.json() as Promise<{ token_type: string; access_token: string }>);
        const info = await fetch(`${base}/oauth/userinfo`, { headers: { Authorization: `Bearer ${token.access_token}` } }).then((res) =>
          res.json(),
        );
        return { tokenType: token.token_type, info };
      },
      { base, clientId, code, redirectUri, verifier },
    );
    expect(seen).toEqual({ tokenType: 'Bearer', info: expect.objectContaining({ sub: person.id, name: 'Dorothy Vaughan' }) });

    // A page on another origin is refused by the browser: it cannot read the answer.
    const elsewhere = await startFakeUpstream((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<!doctype html><title>Elsewhere</title>');
    });
    try {
      await page.goto(elsewhere.url);
      const outcome = await page.evaluate(
        (base) =>
          fetch(`${base}/oauth/userinfo`, { headers: { Authorization: 'Bearer x' } }).then(
            () => 'read',
            () => 'blocked',
          ),
        base,
      );
      expect(outcome).toBe('blocked');
    } finally {
      await elsewhere.close();
    }
  }, 60_000);

  it('remembers consent, lists connected applications on /home, and revokes one', async () => {
    const person = await createUser({ firstName: 'Mary', lastName: 'Jackson' });
    const register = (name: string, callback: string) =>
      clientsService.register(undefined, { name, website: clientApp.url, redirect_uri: `${clientApp.url}/${callback}` });
    const printer = await register('Photo Printer', 'printer');
    const calendar = await register('Team Calendar', 'calendar');
    // The printer takes sign-ins started here (OIDC Core §4), as RFC 7591 registration would record it.
    await ClientModel.updateOne({ _id: printer.client_id }, { $set: { 'metadata.initiate_login_uri': `${clientApp.url}/start` } });
    const authorizeUrl = (client: { client_id: string }, callback: string) =>
      `${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: `${clientApp.url}/${callback}`, scope: 'read' }).toString()}`;

    const page = await browser.newPage();
    await page.goto(authorizeUrl(printer, 'printer'));
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.pathname === '/printer');
    await page.goto(authorizeUrl(calendar, 'calendar'));
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.pathname === '/calendar');

    // Approved before: straight back to the application, no consent page.
    await page.goto(authorizeUrl(printer, 'printer'));
    await page.waitForURL((url) => url.pathname === '/printer' && url.searchParams.has('code'));

    await page.goto(`${base}/home`);
    await page.getByRole('heading', { name: 'Photo Printer' }).waitFor();
    await page.getByRole('heading', { name: 'Team Calendar' }).waitFor();
    await page.screenshot({ path: path.join(tmpdir(), 'home-connected-apps.png'), fullPage: true });
    // And on a phone's width, where the dates must not break at their hyphens.
    const desktop = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.locator('time').evaluateAll((dates) => dates.every((date) => date.getClientRects().length === 1))).toBe(true);
    await page.screenshot({ path: path.join(tmpdir(), 'home-connected-apps-390.png'), fullPage: true });
    if (desktop) await page.setViewportSize(desktop);
    await lookAt(page, 'home-connected-apps-open');
    expect(await page.getByRole('link', { name: 'Open Team Calendar' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Open Photo Printer' }).click();
    await page.waitForURL((url) => url.pathname === '/start');
    expect(new URL(page.url()).searchParams.get('iss')).toBe(base);
    // The same list on /account.
    await page.goto(`${base}/account`);
    await page.getByRole('link', { name: 'Open Photo Printer' }).waitFor();
    await lookAt(page, 'account-connected-apps-open');
    await page.goto(`${base}/home`);
    await page.getByRole('listitem').filter({ hasText: 'Photo Printer' }).getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(`${base}/home`);
    expect(await page.getByRole('heading', { name: 'Photo Printer' }).count()).toBe(0);
    await page.getByRole('heading', { name: 'Team Calendar' }).waitFor();

    // Revoked: the consent page again.
    await page.goto(authorizeUrl(printer, 'printer'));
    await page.getByRole('heading', { name: 'Authorize Photo Printer?' }).waitFor();
  }, 60_000);
});
