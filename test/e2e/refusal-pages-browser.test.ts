// The pages' one 429 (web/layout.ts tooManyPage), met as a person meets it in Chromium: a wrong
// password spends a budget of one, and the right one is then refused with a page that says how long to
// wait. Screenshot at 1280 and 390 px, checked by axe-core.
import type { Browser } from 'playwright-core';
import { describeWithBrowser, lookAt } from '../helpers/browser';
import { useServerInBrowser } from '../helpers/browser-server';

describeWithBrowser('refusal-pages-browser')('a page refused by a budget', () => {
  const live = useServerInBrowser(() => ({ RATE_LIMITS: 'on', RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_ADDRESS: '1' }));
  let browser: Browser;
  let base: string;
  beforeAll(() => {
    ({ base, browser } = live());
  });

  it('says there were too many attempts and how long to wait, with Retry-After', async () => {
    const email = `grace-${Date.now()}@example.com`;
    const created = await fetch(`${base}/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: 'right-password', firstName: 'Grace', lastName: 'Hopper' }),
    });
    expect(created.status).toBe(201);
    const page = await browser.newPage();
    const signIn = async (password: string) => {
      await page.goto(`${base}/login`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password', { exact: true }).fill(password);
      const [answer] = await Promise.all([page.waitForResponse(`${base}/login`), page.getByRole('button', { name: 'Sign in' }).click()]);
      return answer;
    };
    expect((await signIn('wrong-password')).status()).toBe(401);
    const refused = await signIn('right-password');
    expect(refused.status()).toBe(429);
    expect(Number(refused.headers()['retry-after'])).toBeGreaterThan(0);
    await page.getByRole('heading', { name: 'Too many attempts' }).waitFor();
    expect(await page.textContent('main')).toMatch(/Please wait (15 minutes|a minute|\d+ minutes) and try again\./);
    await lookAt(page, 'too-many-attempts');
    await page.close();
  });
});
