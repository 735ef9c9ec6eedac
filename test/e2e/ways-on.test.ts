// Every page leads somewhere: /home to a device, the API reference and the start page; the device
// flow's last page back to the account; the start page says how to make the demo client. Each page is
// screenshot at 1280 and 390 px (into the temp folder, to be looked at) and checked by axe-core.
import type { Browser } from 'playwright-core';
import * as clientsService from '../../src/oauth/clients/clients.service';
import { DEVICE_CODE_GRANT } from '../../src/oauth/protocol';
import { describeWithBrowser, lookAt } from '../helpers/browser';
import { useServerInBrowser } from '../helpers/browser-server';
import { createUser } from '../helpers/factories';

describeWithBrowser('ways-on')('pages that lead on', () => {
  const live = useServerInBrowser();
  let browser: Browser;
  let base: string;
  beforeAll(() => {
    ({ base, browser } = live());
  });

  it('the start page says how to make the demo client', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    expect(await page.textContent('body')).toContain('npm run seed -- --demo');
    await lookAt(page, 'landing');
  });

  it('a page that is not there, and a refused authorization request, are pages that say why', async () => {
    const page = await browser.newPage();
    const missing = await page.goto(`${base}/nowhere`);
    expect(missing?.status()).toBe(404);
    expect(await page.textContent('body')).toContain('links to everything there is');
    await lookAt(page, 'not-found');
    await page.goto(`${base}/oauth/authorize?response_type=code&client_id=no-such-app`);
    expect(await page.textContent('body')).toContain('client_id "no-such-app" is not a registered client');
    await lookAt(page, 'authorize-refused');
  });

  it('/home links on, and a connected device page leads back to it', async () => {
    const person = await createUser({ firstName: 'Ada', lastName: 'Lovelace' });
    const client = await clientsService.register(undefined, {
      name: 'Living Room TV',
      website: 'https://tv.example.com',
      redirect_uri: 'https://tv.example.com/cb',
      grants: [DEVICE_CODE_GRANT],
    });
    const started = (await (
      await fetch(`${base}/oauth/device_authorization`, {
        method: 'POST',
        body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret }),
      })
    ).json()) as { user_code: string };

    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/home`);
    for (const name of ['Connect a device', 'API reference', 'Start page']) {
      await page.getByRole('link', { name }).waitFor();
    }
    await lookAt(page, 'home');

    await page.getByRole('link', { name: 'Connect a device' }).click();
    await page.getByLabel('Code').fill(started.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    await lookAt(page, 'device-consent');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device connected' }).waitFor();
    await lookAt(page, 'device-connected');
    await page.getByRole('link', { name: 'Your connected applications' }).click();
    await page.waitForURL(`${base}/home`);
    expect(await page.textContent('body')).toContain('Living Room TV');
  }, 60_000);
});
