// People in Chromium, as the browser tests need them: signed in through /login, and an operator (an
// admin who just turned on an authenticator app, so the console lets them in).
import type { Browser, Page } from 'playwright-core';
import * as usersService from '../../src/users/users.service';
import { createUser } from './factories';
import { totpCode } from './factors';

export async function signInInBrowser(page: Page, base: string, person: { email: string; password: string }): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${base}/home`);
}

/** A new admin, signed in, with an authenticator app turned on just now: a page the console takes. */
export async function operatorInBrowser(
  browser: Browser,
  base: string,
  name: { firstName?: string; lastName?: string } = {},
): Promise<{ page: Page; admin: Awaited<ReturnType<typeof createUser>> }> {
  const admin = await createUser(name);
  await usersService.setRole(admin.id, 'admin', true);
  const page = await (await browser.newContext()).newPage();
  await signInInBrowser(page, base, admin);
  await page.goto(`${base}/account/totp`);
  const key = ((await page.locator('code').first().textContent()) ?? '').replace(/ /g, '');
  await page.getByLabel('Code from the app').fill(totpCode(key));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
  return { page, admin };
}
