// The server started in this process on a free port, and Chromium, for one describe block: the
// harness of the browser tests. Its database is dropped and both are stopped after the block.
import mongoose from 'mongoose';
import type { Browser } from 'playwright-core';
import { freePort } from './ports';
import type { Clock } from '../../src/common/clock';
import { start, type RunningServer } from '../../src/server';
import { testConfig } from './app';
import { launchChromium } from './browser';
import { testDatabaseUriWithName } from './db';

/** `settings`: more configuration, read when the server starts (after the describe's earlier beforeAll). */
export function useServerInBrowser(
  settings: () => Record<string, string> = () => ({}),
  /** The host name in PUBLIC_URL (WebAuthn needs a name, such as localhost, not an address). */
  host = '127.0.0.1',
  /** The server's clock, when the test moves time. */
  clock?: Clock,
): () => { base: string; browser: Browser; port: number } {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  let base = '';
  let port = 0;
  beforeAll(async () => {
    // A PORT in the settings is kept (a test that had to name this server's URL before it started).
    const extra = settings();
    port = extra.PORT ? Number(extra.PORT) : await freePort();
    base = `http://${host}:${port}`;
    server = await start(
      testConfig({ PORT: String(port), PUBLIC_URL: base, WEATHER_PORT: 'off', MONGODB_URI: testDatabaseUriWithName(), ...extra }),
      undefined,
      clock,
    );
    // Another host name still reaches this server on 127.0.0.1 only.
    browser = await launchChromium(host === '127.0.0.1' ? [] : [`--host-resolver-rules=MAP ${host} 127.0.0.1`]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await mongoose.connection.db?.dropDatabase().catch(() => undefined);
    await server?.stop();
  });
  return () => ({ base, browser: browser!, port });
}
