// What every entry point that opens the database (the server and each command) makes true of the
// stored records before it uses them: the changes a version needs made once per database, in order.
import type { Logger } from 'pino';
import type { Config } from './config';
import { journalExistingRecords } from './db/expiry-journal';
import { runOnce } from './db/migrations';
import * as factorsService from './factors/factors.service';
import * as clientsService from './oauth/clients/clients.service';
import * as backchannelService from './oauth/oidc/backchannel.service';
import * as tokensService from './oauth/tokens/tokens.service';
import { openDatabase, type OpenDatabase } from './db/open';
import type { EmbeddedRole } from './db/shared-embedded';
import * as usersService from './users/users.service';

/** Runs the migrations this database has not had yet. */
export async function migrate(logger: Pick<Logger, 'info'>): Promise<void> {
  // Issue 54: people are found by email and provider account through key records; a person's tokens
  // live by their family's record; expiring records are deleted through the expiry journal.
  if (await runOnce('user-keys', usersService.writeMissingKeys)) logger.info('wrote the keys people are found by');
  if (await runOnce('token-families', tokensService.writeMissingFamilies)) logger.info("wrote the records of tokens' families");
  if (await runOnce('expiry-journal', journalExistingRecords)) logger.info('wrote down when each stored record expires');
  if (await runOnce('owner-lists', factorsService.listExistingFactors)) logger.info("listed each person's passkeys and recovery codes");
  if (await runOnce('client-name-keys', clientsService.writeMissingNameKeys)) logger.info("stored the applications' names as searched");
  if (await runOnce('backchannel-sessions', backchannelService.regroupRecords))
    logger.info('kept back-channel logout records one per session');
}

/** The database opened (db/open.ts) and migrated. */
export async function openMigratedDatabase(config: Config, logger: Logger, role?: EmbeddedRole): Promise<OpenDatabase> {
  const database = await openDatabase(config, logger, role);
  try {
    await migrate(logger);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}
