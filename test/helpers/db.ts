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

/**
 * The test database with the driver's command monitoring on: `commands` collects each command sent
 * (as "find users"), but for the change signals the caches poll, which are not a request's; `shapes`
 * each find's and delete's filter by its field names (as "find users by _id"): what a lookup asks
 * the engine, which FerretDB answers without reading the collection only for `_id` alone.
 */
export function useMonitoredTestDatabase(): { commands: string[]; shapes: string[] } {
  const commands: string[] = [];
  const shapes: string[] = [];
  const record = (event: CommandStartedEvent) => {
    const command = `${event.commandName} ${String(event.command[event.commandName])}`;
    if (command === 'find change_signals') return;
    commands.push(command);
    const filter =
      event.commandName === 'find' ? event.command.filter : event.commandName === 'delete' ? event.command.deletes?.[0]?.q : undefined;
    if (filter)
      shapes.push(
        `${command} by ${
          Object.keys(filter as object)
            .sort()
            .join(',') || 'nothing'
        }`,
      );
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
