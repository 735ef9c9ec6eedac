// Connects Mongoose so that a missing database fails fast instead of queueing requests: commands are
// not buffered and server selection gives up after a second, which the error handler turns into 503.
import mongoose from 'mongoose';
import { journalWritten } from './expiry-journal';

const SERVER_SELECTION_TIMEOUT_MS = 1000;

mongoose.set('strictQuery', true);
// Filters built from client input can never smuggle in query operators.
mongoose.set('sanitizeFilter', true);
mongoose.set('bufferCommands', false);
mongoose.set('autoIndex', false);

/** The driver's connection pool as its events report it, for the metrics. */
const pool = { open: 0, inUse: 0 };

export function poolStats(): Readonly<typeof pool> {
  return { ...pool };
}

function watchPool(): void {
  pool.open = 0;
  pool.inUse = 0;
  const client = mongoose.connection.getClient();
  client.on('connectionCreated', () => pool.open++);
  client.on('connectionClosed', () => (pool.open = Math.max(0, pool.open - 1)));
  client.on('connectionCheckedOut', () => pool.inUse++);
  client.on('connectionCheckedIn', () => (pool.inUse = Math.max(0, pool.inUse - 1)));
}

/**
 * Connects, trying again for `waitMs` (config.databaseStartWaitMs): a database starting beside the
 * server, or one slow to answer under load, gets that long, while requests later still fail after a
 * second.
 */
export const DATABASE_START_WAIT_SECONDS = 15;

export async function connectDatabase(uri: string, dbName?: string, waitMs = DATABASE_START_WAIT_SECONDS * 1000): Promise<typeof mongoose> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await mongoose.connect(uri, {
        dbName,
        serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
        connectTimeoutMS: 5000,
      });
      break;
    } catch (err) {
      await mongoose.disconnect().catch(() => undefined);
      if (!isDatabaseUnavailable(err) || Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  watchPool();
  // Indexes are created explicitly (autoIndex is off) so start-up fails when one cannot be built.
  await Promise.all(Object.values(mongoose.models).map((model) => model.createIndexes()));
  return mongoose;
}

export async function disconnectDatabase(): Promise<void> {
  // The expiry journal's entries still gathering go out first (db/expiry-journal.ts).
  await journalWritten().catch(() => undefined);
  await mongoose.disconnect();
}

/** Pings the database; false when it does not answer within the selection timeout. */
export async function isDatabaseReachable(): Promise<boolean> {
  const db = mongoose.connection.db;
  if (!db) return false;
  try {
    await db.admin().ping();
    return true;
  } catch {
    return false;
  }
}

const { mongo } = mongoose;
const UNAVAILABLE_ERRORS = [
  mongo.MongoNetworkError,
  mongo.MongoServerSelectionError,
  mongo.MongoNotConnectedError,
  mongo.MongoTopologyClosedError,
  mongoose.Error.MongooseServerSelectionError,
];

/** True for errors that mean "the database is not reachable now", as opposed to a bad query. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (UNAVAILABLE_ERRORS.some((type) => err instanceof type)) return true;
  // Mongoose refuses commands outright while disconnected, because buffering is off.
  return err instanceof mongoose.Error && /before initial connection is complete|connection .* closed/i.test(err.message);
}
