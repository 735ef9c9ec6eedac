// Signs in through the real pages in Chromium at a host name other than localhost, over plain http
// (as on a LAN address or a container name): the security headers must not send the form to https.
import mongoose from 'mongoose';
import type { Browser } from 'playwright-core';
import { freePort } from '../helpers/ports';
import { start, type RunningServer } from '../../src/server';
import { testConfig } from '../helpers/app';
import { describeWithBrowser, launchChromium } from '../helpers/browser';
import { testDatabaseUriWithName } from '../helpers/db';
import { createUser } from '../helpers/factories';

describeWithBrowser('http-host')('sign-in at http://dev.test', () => {
  let server: RunningServer;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://dev.test:${port}`;
    server = await start(testConfig({ PORT: String(port), WEATHER_PORT: 'off', PUBLIC_URL: base, MONGODB_URI: testDatabaseUriWithName() }));
    browser = await launchChromium(['--host-resolver-rules=MAP dev.test 127.0.0.1']);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await mongoose.connection.db?.dropDatabase().catch(() => undefined);
    await server?.stop();
  });

  it('posts the login form over http and lands on /home', async () => {
    const user = await createUser({ firstName: 'Grace', lastName: 'Hopper' });
    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    expect(page.url()).toBe(`${base}/home`);
    expect(await page.textContent('main')).toContain('Grace Hopper');
  }, 60_000);
});
