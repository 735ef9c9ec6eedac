// Starts the server: configuration, database (embedded when MONGODB_URI is unset), the listener,
// and a graceful shutdown that finishes in-flight requests before closing the database.
import type { Clock } from './common/clock';
import { createServer, type Server } from 'node:http';
import { createApp, createMetricsApp, createWeatherApp } from './app';
import { createLogger, type Logger } from './common/logger';
import { configurePasswordHashing } from './common/passwords';
import { loadConfigFromProcess, startupWarnings, type Config } from './config';
import { loadSampleIfEmpty } from './catalogue/catalogue.service';
import { openMigratedDatabase } from './migrations';
import { createMailer } from './mail/mailer';
import { CALLBACK_DEBUG_PATH, followServer } from './oauth/demo/demo.service';

const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  readonly config: Config;
  readonly port: number;
  /** null when WEATHER_PORT=off. */
  readonly weatherPort: number | null;
  /** null unless METRICS_PORT is set. */
  readonly metricsPort: number | null;
  stop(): Promise<void>;
}

/** Listens on `port`; a port another process holds is refused naming the variable that chose it. */
function listen(server: Server, port: number, variable: 'PORT' | 'WEATHER_PORT' | 'METRICS_PORT'): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE' && err.code !== 'EACCES') return reject(err);
      const how = variable === 'PORT' ? 'a free port' : 'a free port, or off';
      reject(new Error(`${variable}=${port}: another process is listening there (${err.code}); set ${variable} to ${how}`, { cause: err }));
    };
    server.once('error', failed);
    server.listen(port, () => {
      server.off('error', failed);
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

export async function start(
  config: Config = loadConfigFromProcess(),
  logger: Logger = createLogger(config.logLevel),
  /** The sign-in journey's clock: the system's, or one a test moves. */
  clock?: Clock,
): Promise<RunningServer> {
  for (const warning of startupWarnings(config)) logger.warn(warning);
  configurePasswordHashing(config.passwordHashing, { capPerRequester: config.rateLimits });
  const database = await openMigratedDatabase(config, logger, 'server');
  if (database.embedded && (await loadSampleIfEmpty())) {
    logger.info('loaded the sample catalogue into the new embedded database');
  }
  // The demo is development only; wherever this server listens, its client can come back here.
  if (!config.isProduction && (await followServer(config.publicUrl))) {
    logger.info(`the demo client now also accepts ${config.publicUrl}${CALLBACK_DEBUG_PATH}`);
  }
  const mailer = createMailer(config, logger);
  const servers = [createServer(createApp({ config, logger, mailer, clock }))];
  let port: number;
  let weatherPort: number | null = null;
  let metricsPort: number | null = null;
  try {
    port = await listen(servers[0], config.port, 'PORT');
    logger.info(`listening on http://localhost:${port}`);
    if (config.weatherPort !== null) {
      servers.push(createServer(createWeatherApp({ config, logger })));
      weatherPort = await listen(servers[1], config.weatherPort, 'WEATHER_PORT');
      logger.info(`weather listening on http://localhost:${weatherPort}`);
    }
    if (config.metricsPort !== null) {
      servers.push(createServer(createMetricsApp()));
      metricsPort = await listen(servers[servers.length - 1], config.metricsPort, 'METRICS_PORT');
      logger.info(`metrics on http://localhost:${metricsPort}/metrics`);
    }
  } catch (err) {
    // What did start is stopped, so a caller that goes on (a test) finds the ports and database free.
    await Promise.all(servers.filter((server) => server.listening).map(closeServer));
    await database.close();
    throw err;
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down: finishing in-flight requests');
      await Promise.all(servers.map(closeServer));
      // Mail the last requests queued (a reset link) goes out before the database closes.
      await mailer.drained(SHUTDOWN_GRACE_MS);
      await database.close();
      logger.info('stopped');
      // Log writes are asynchronous: wait for them before the process exits.
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    })());

  return { config, port, weatherPort, metricsPort, stop };
}

if (require.main === module) {
  start().then(
    (running) => {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.once(signal, () => {
          running.stop().then(
            () => process.exit(0),
            () => process.exit(1),
          );
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
