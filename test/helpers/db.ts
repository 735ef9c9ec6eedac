// Each test file gets a database of its own on the shared server, dropped when the file is done.
import { randomBytes } from 'node:crypto';
import type { CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import { connectDatabase, disconnectDatabase } from '../../src/db/mongoose';

export function testDatabaseUri(): string {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI is not set: the global setup should have started a database');
  return uri;
}

export function uniqueDatabaseName(): string {
  return `test_${process.env.JEST_WORKER_ID ?? '0'}_${randomBytes(4).toString('hex')}`;
}

/** Connects Mongoose to a fresh database before the file's tests and drops it after them. */
export function useTestDatabase(): void {
  beforeAll(async () => {
    await connectDatabase(testDatabaseUri(), uniqueDatabaseName());
  });
  afterAll(async () => {
    await mongoose.connection.db?.dropDatabase();
    await disconnectDatabase();
  });
}

/** The filter of each statement a command carries (a find's, each update's and delete's, ...); none for an insert. */
export function filtersOf(event: CommandStartedEvent): Record<string, unknown>[] {
  const command = event.command as Record<string, unknown> & {
    updates?: { q: Record<string, unknown> }[];
    deletes?: { q: Record<string, unknown> }[];
    pipeline?: Record<string, unknown>[];
  };
  switch (event.commandName) {
    case 'find':
      return [(command.filter as Record<string, unknown>) ?? {}];
    case 'update':
      return (command.updates ?? []).map((statement) => statement.q);
    case 'delete':
      return (command.deletes ?? []).map((statement) => statement.q);
    case 'findAndModify':
    case 'count':
    case 'distinct':
      return [(command.query as Record<string, unknown>) ?? {}];
    case 'aggregate': {
      const first = command.pipeline?.[0];
      return [(first?.$match as Record<string, unknown>) ?? {}];
    }
    default:
      return [];
  }
}

const isOperatorObject = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !(value instanceof Date) &&
  Object.keys(value).some((key) => key.startsWith('$'));

/**
 * A filter by its field names, an operator after its field (`_id.$in`): "_id" alone is a lookup by
 * key, the one filter FerretDB 1.x hands to SQLite (test/db/keyed-filters.test.ts holds the engine to
 * it); anything else reads the whole collection there.
 */
export function shapeOf(filter: Record<string, unknown>): string {
  const fields = Object.entries(filter)
    .map(([field, value]) =>
      isOperatorObject(value)
        ? Object.keys(value as object)
            .map((operator) => `${field}.${operator}`)
            .join(',')
        : field,
    )
    .sort();
  return fields.join(',') || 'nothing';
}

/** Whether a shape is a lookup by key (shapeOf). */
export const isKeyed = (shape: string): boolean => shape.endsWith(' by _id');

/**
 * Commands no request waits for: the change signals the caches poll, and the expiry journal's
 * (src/db/expiry-journal.ts: its entries gathered and written in the background, its sweeps).
 */
export function isBackground(event: CommandStartedEvent): boolean {
  const target = String(event.command[event.commandName]);
  if (event.commandName === 'find' && target === 'change_signals') return true;
  return event.commandName === 'listCollections' || target.startsWith('expiring_');
}

/**
 * The test database with the driver's command monitoring on: `commands` collects each command sent
 * (as "find users"), but for those no request waits for (isBackground); `shapes`
 * each statement's filter by its field names (as "find users by _id", "delete sessions by
 * expiresAt.$lte"; shapeOf): what a lookup asks the engine, which FerretDB answers without reading
 * the collection only for `_id` alone.
 */
export function useMonitoredTestDatabase(): { commands: string[]; shapes: string[] } {
  const commands: string[] = [];
  const shapes: string[] = [];
  const record = (event: CommandStartedEvent) => {
    if (isBackground(event)) return;
    const command = `${event.commandName} ${String(event.command[event.commandName])}`;
    commands.push(command);
    for (const filter of filtersOf(event)) shapes.push(`${command} by ${shapeOf(filter)}`);
  };
  beforeAll(async () => {
    await mongoose.connect(testDatabaseUri(), { dbName: uniqueDatabaseName(), autoIndex: true, monitorCommands: true });
    await mongoose.connection.syncIndexes();
    mongoose.connection.getClient().on('commandStarted', record);
  });
  afterAll(async () => {
    mongoose.connection.getClient().off('commandStarted', record);
    await mongoose.connection.db?.dropDatabase();
    await disconnectDatabase();
  });
  return { commands, shapes };
}

/** Runs `work` with `listener` hearing every command the driver starts meanwhile (monitoring must be on). */
export async function watchingCommands<T>(listener: (event: CommandStartedEvent) => void, work: () => Promise<T>): Promise<T> {
  const client = mongoose.connection.getClient();
  client.on('commandStarted', listener);
  try {
    return await work();
  } finally {
    client.off('commandStarted', listener);
  }
}

/** Empties every collection, for tests that need to see exactly what they created. */
export async function clearCollections(): Promise<void> {
  await Promise.all(Object.values(mongoose.connection.collections).map((collection) => collection.deleteMany({})));
}

/** The test server's URI pointing at a database of its own (for code that connects by URI alone). */
export function testDatabaseUriWithName(name = uniqueDatabaseName()): string {
  const url = new URL(testDatabaseUri());
  url.pathname = `/${name}`;
  return url.toString();
}
