// A person looking after their own account in Chromium: signs up, follows the verification mail (read
// from a real SMTP server on loopback), fills the profile, changes the password, signs out, forgets
// it, and sets a new one from the reset mail. Each page is screenshot at 1280 and 390 px and checked
// by axe-core.
import type { Browser } from 'playwright-core';
import { describeWithBrowser, lookAt } from '../helpers/browser';
import { useServerInBrowser } from '../helpers/browser-server';
import { totpCode } from '../helpers/factors';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink';

describeWithBrowser('account-browser')("looking after one's own account in a real browser", () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(() => sink.close());
  const live = useServerInBrowser(() => ({ SMTP_URL: sink.url }));
  let browser: Browser;
  let base: string;
  beforeAll(() => {
    ({ base, browser } = live());
  });

  it('signs up, verifies, edits the profile, changes the password, and resets a forgotten one', async () => {
    const email = `katherine-${Date.now()}@example.com`;
    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await lookAt(page, 'account-signup');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('abcdefgh');
    await page.getByLabel('First name (optional)').fill('Katherine');
    await page.getByLabel('Last name (optional)').fill('Johnson');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(`${base}/account?done=signed-up`);
    expect(await page.locator('.notice').textContent()).toContain('Welcome');
    await lookAt(page, 'account-page-new');

    const [verification] = await sink.mailTo(email);
    await page.goto(verification.link!);
    await page.getByRole('heading', { name: 'Email verified' }).waitFor();
    await lookAt(page, 'account-verified');
    await page.getByRole('link', { name: 'Back to your account' }).click();
    expect(await page.textContent('main')).toContain('(verified)');

    await page.getByLabel('Website (URL)').fill('not a url');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('claims.website must be an http or https URL');
    await lookAt(page, 'account-profile-error');
    await page.getByLabel('Website (URL)').fill('https://katherine.example.com');
    await page.getByLabel('City').fill('Hampton');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.waitForURL(`${base}/account?done=profile`);
    expect(await page.getByLabel('City').inputValue()).toBe('Hampton');

    await page.getByLabel('Current password').fill('abcdefgh');
    await page.getByLabel('New password').fill('second-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(`${base}/account?done=password`);
    expect(await page.locator('.notice').textContent()).toContain('Your password is changed');
    await lookAt(page, 'account-page');

    await page.getByRole('button', { name: 'Sign out', exact: true }).last().click();
    await page.waitForURL(`${base}/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send link' }).click();
    await page.getByRole('status').waitFor();
    await lookAt(page, 'account-forgot-sent');

    const [reset] = (await sink.mailTo(email, 2)).filter((mail) => mail.subject === 'Reset your password');
    await page.goto(reset.link!);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await lookAt(page, 'account-reset');
    await page.getByLabel('New password').fill('third-password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${base}/account?done=reset`);
    expect(await page.textContent('main')).toContain('Password reset');

    // The used link is a page that says so.
    await page.goto(reset.link!);
    await page.getByRole('heading', { name: 'Link not valid' }).waitFor();
    await lookAt(page, 'account-link-used');
    await page.close();
  }, 120_000);

  it('removes an authenticator app added lately with a reset, and signs nobody in: the page says to sign in anew', async () => {
    const email = `dorothy-${Date.now()}@example.com`;
    const page = await browser.newPage();
    await page.goto(`${base}/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('abcdefgh');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(`${base}/account?done=signed-up`);
    // A verified address: factors added before it was verified would be a squatter's, all removed.
    const [verification] = await sink.mailTo(email);
    await page.goto(verification.link!);
    await page.getByRole('heading', { name: 'Email verified' }).waitFor();
    await page.goto(`${base}/account/totp`);
    const key = ((await page.locator('code').first().textContent()) ?? '').replace(/ /g, '');
    await page.getByLabel('Code from the app').fill(totpCode(key));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    await page.context().clearCookies();

    await page.goto(`${base}/forgot-password`);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send link' }).click();
    await page.getByRole('status').waitFor();
    // The verification, the note that an app was added, then the reset link.
    const [reset] = (await sink.mailTo(email, 3)).filter((mail) => mail.subject === 'Reset your password');
    await page.goto(reset.link!);
    await page.getByLabel('New password').fill('fourth-password');
    await page.getByLabel(/Also remove the second factors added in the last 7 days/).check();
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    expect(await page.textContent('main')).toContain('Removed, as you asked: authenticator app');
    await lookAt(page, 'account-reset-factors-removed');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(/\/login\?return_to=%2Faccount$/);
    await page.close();
  }, 120_000);
});
