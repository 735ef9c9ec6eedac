// The pages' refusals (web/layout.ts), met as a person meets them in Chromium: the one 429, where a
// wrong password spends a budget of one and the right one is then refused with a page that says how
// long to wait; and a link whose value breaks its field's rule (issue 35), refused with a page that
// says which rule. Screenshots at 1280 and 390 px, checked by axe-core.
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

  it('says which rule a link broke, and changes nothing', async () => {
    const page = await browser.newPage();
    const answer = await page.goto(`${base}/login?login_hint=${'a'.repeat(255)}%40example.com`);
    expect(answer?.status()).toBe(400);
    await page.getByRole('heading', { name: 'Invalid request' }).waitFor();
    expect(await page.textContent('main')).toContain('login_hint must be text of at most 254 characters');
    await lookAt(page, 'invalid-request');
    await page.close();
  });
});
