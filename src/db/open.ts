// Opens the configured database for the server and the command-line tools alike: MONGODB_URI when
// set, otherwise the embedded server. The returned close() disconnects and stops what was started.
import type { Logger } from 'pino';
import type { Config } from '../config';
import { describeAddress } from './ports';
import { shareEmbeddedDatabase, type EmbeddedRole } from './shared-embedded';
import { connectDatabase, disconnectDatabase, isDatabaseUnavailable } from './mongoose';

const EMBEDDED_DB_NAME = 'rest_api';

export interface OpenDatabase {
  /** True when this process started the embedded server. */
  readonly embedded: boolean;
  close(): Promise<void>;
}

/**
 * The host list of a connection string, without the credentials and options it may carry; a Unix
 * socket's percent-encoded path as the path it is.
 */
export function hostsOf(uri: string): string {
  const hosts = uri
    .replace(/^mongodb(\+srv)?:\/\//, '')
    .replace(/^[^@/]*@/, '')
    .split(/[/?]/)[0];
  try {
    return decodeURIComponent(hosts);
  } catch {
    return hosts;
  }
}

/** `role`: the server keeps an embedded engine it starts for others to use; a command's ends with it. */
export async function openDatabase(config: Config, logger: Logger, role: EmbeddedRole = 'command'): Promise<OpenDatabase> {
  if (config.mongodbUri) {
    await connectDatabase(config.mongodbUri, undefined, config.databaseStartWaitMs).catch((err: unknown) => {
      if (!isDatabaseUnavailable(err)) throw err;
      throw new Error(`the database at MONGODB_URI (${hostsOf(config.mongodbUri ?? '')}) did not answer: ${(err as Error).message}`, {
        cause: err,
      });
    });
    logger.info('connected to the database at MONGODB_URI');
    return { embedded: false, close: disconnectDatabase };
  }
  const server = await shareEmbeddedDatabase({
    engine: config.embeddedEngine,
    dataDir: config.dataDir,
    cacheDir: config.toolCacheDir,
    log: (message) => logger.info(message),
    warn: (message) => logger.error(message),
    role,
  });
  logger.info(
    { engine: server.engine, dataDir: server.dataDir, address: describeAddress(server.address), borrowed: server.borrowed },
    server.borrowed
      ? `connected to the embedded ${server.engine} database another process runs on ${describeAddress(server.address)}`
      : `embedded ${server.engine} database on ${describeAddress(server.address)}, data in ${server.dataDir}`,
  );
  try {
    await connectDatabase(server.uri, EMBEDDED_DB_NAME, config.databaseStartWaitMs);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    embedded: true,
    async close() {
      await disconnectDatabase();
      await server.stop();
    },
  };
}
