// `npm run seed [-- --demo]`: loads the sample catalogue (data/catalogue.json) into the configured
// database; with --demo (never in production) also a demo user and a demo client whose callback is
// this server's /oauth/callback-debug page. Safe to run again: nothing is duplicated.
import { parseArgs } from 'node:util';
import { loadCatalogue } from '../catalogue/catalogue.service';
import { createLogger } from '../common/logger';
import { exitWithHelpIfAsked } from './help';
import { loadConfigFromProcess } from '../config';
import { openMigratedDatabase } from '../migrations';
import { CALLBACK_DEBUG_PATH, DEMO_CLIENT, DEMO_USER, seedDemo } from '../oauth/demo/demo.service';

function demoGuide(publicUrl: string): string {
  const authorize = new URLSearchParams({
    response_type: 'code',
    client_id: DEMO_CLIENT.id,
    redirect_uri: `${publicUrl}${CALLBACK_DEBUG_PATH}`,
    scope: 'openid profile email',
    state: 'demo',
  });
  return `
Demo ready (development only).
  user       ${DEMO_USER.email} / ${DEMO_USER.password}
  client     ${DEMO_CLIENT.id} / ${DEMO_CLIENT.secret}
Try the authorization code flow in a browser (sign in as the demo user, approve, and the callback
page exchanges the code and shows the tokens):
  ${publicUrl}/oauth/authorize?${authorize.toString()}
Or the device flow from a shell, then type the code at ${publicUrl}/device:
  curl -d client_id=${DEMO_CLIENT.id} -d client_secret=${DEMO_CLIENT.secret} ${publicUrl}/oauth/device_authorization
`;
}

const USAGE = `usage: npm run seed [-- --demo]

  loads the sample catalogue (data/catalogue.json) into the configured database; safe to repeat
  --demo   also a demo user and client for trying the OAuth flows (never with NODE_ENV=production)`;

async function main(): Promise<void> {
  exitWithHelpIfAsked(USAGE);
  const { values } = parseArgs({ options: { demo: { type: 'boolean' } } });
  const config = loadConfigFromProcess();
  if (values.demo && config.isProduction) throw new Error('--demo adds a user and a client with published passwords: never in production');
  const logger = createLogger(config.logLevel);
  const database = await openMigratedDatabase(config, logger);
  try {
    const loaded = await loadCatalogue();
    logger.info(loaded, `catalogue loaded: ${loaded.categories} categories, ${loaded.products} products`);
    if (values.demo) {
      await seedDemo(config.publicUrl);
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
      process.stdout.write(demoGuide(config.publicUrl));
    }
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`Seeding failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
