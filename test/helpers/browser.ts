// Debian's Chromium through playwright-core, started the way this closed network needs.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
