// Starts the server: configuration, database (embedded when MONGODB_URI is unset), the listener,
// and a graceful shutdown that finishes in-flight requests before closing the database.
import { createServer, type Server } from 'node:http';
import { createApp } from './app';
import { createLogger, type Logger } from './common/logger';
import { loadConfigFromProcess, type Config } from './config';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './db/embedded';
import { connectDatabase, disconnectDatabase } from './db/mongoose';

const SHUTDOWN_GRACE_MS = 10_000;
const EMBEDDED_DB_NAME = 'rest_api';

export interface RunningServer {
  readonly config: Config;
  readonly port: number;
  stop(): Promise<void>;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Stops accepting connections and resolves when in-flight requests have finished (or the grace ends). */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

async function openDatabase(config: Config, logger: Logger): Promise<EmbeddedDatabase | null> {
  if (config.mongodbUri) {
    await connectDatabase(config.mongodbUri);
    logger.info('connected to the database at MONGODB_URI');
    return null;
  }
  const embedded = await startEmbeddedDatabase({
    engine: config.embeddedEngine,
    dataDir: config.dataDir,
    log: (message) => logger.info(message),
  });
  logger.info(
    { engine: embedded.engine, dataDir: embedded.dataDir, port: embedded.port },
    `embedded ${embedded.engine} database on 127.0.0.1:${embedded.port}, data in ${embedded.dataDir}`,
  );
  await connectDatabase(embedded.uri, EMBEDDED_DB_NAME);
  return embedded;
}

export async function start(config: Config = loadConfigFromProcess()): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  for (const name of config.generatedSecrets) {
    logger.warn(`${name} is not set: a random one was generated for this start (set it to keep sessions and tokens valid across restarts)`);
  }

  const embedded = await openDatabase(config, logger);
  const server = createServer(createApp({ config, logger }));
  const port = await listen(server, config.port);
  logger.info(`listening on http://localhost:${port}`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down: finishing in-flight requests');
      await closeServer(server);
      await disconnectDatabase();
      await embedded?.stop();
      logger.info('stopped');
    })());

  return { config, port, stop };
}

if (require.main === module) {
  start().then(
    (running) => {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(signal, () => {
          running.stop().then(() => process.exit(0), () => process.exit(1));
        });
      }
    },
    (err: unknown) => {
      // One clear line on stderr; configuration messages name the variable, never a secret's value.
      process.stderr.write(`Start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
