// Debian's Chromium through playwright-core, started the way this closed network needs.
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** describe, or describe.skip with a note where Chromium is missing (CI installs it: .ci/run). */
export function describeWithBrowser(name: string): jest.Describe {
  if (existsSync(CHROMIUM) || process.env.CI) return describe;
  process.stderr.write(`${name}: ${CHROMIUM} not found, skipped\n`);
  return describe.skip;
}

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}

/** axe-core's violations on the page as it is now (WCAG 2 A and AA rules), as "rule: target" lines. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the pages' Content-Security-Policy does not govern.
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations: { id: string; nodes: { target: string[] }[] }[] = await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] } }).then((results) => results.violations)`,
  );
  return violations.flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`));
}

/**
 * Screenshots (full page, into the temp folder, to be looked at) at 1280 and 390 px, with no axe-core
 * violation and nothing wider than the screen (no sideways scrolling) at either.
 */
export async function lookAt(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.screenshot({ path: path.join(tmpdir(), `${name}-${width}.png`), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);
    expect({ page: name, width, scrollWidth: await page.evaluate('document.documentElement.scrollWidth') }).toEqual({
      page: name,
      width,
      scrollWidth: width,
    });
  }
}

/** A virtual authenticator on the page (DevTools protocol, WebAuthn domain): resident keys, user verification, presence given at once. */
export async function withAuthenticator(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return cdp;
}
