// `npm run seed`: loads the sample catalogue (data/catalogue.json) into the configured database.
// Safe to run again: records are overwritten by id, never duplicated.
import { loadCatalogue } from '../catalogue/catalogue.service';
import { createLogger } from '../common/logger';
import { loadConfigFromProcess } from '../config';
import { openDatabase } from '../db/open';

async function main(): Promise<void> {
  const config = loadConfigFromProcess();
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config, logger);
  try {
    const loaded = await loadCatalogue();
    logger.info(loaded, `catalogue loaded: ${loaded.categories} categories, ${loaded.products} products`);
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`Seeding failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
