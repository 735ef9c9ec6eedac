import { rm } from 'node:fs/promises';
import path from 'node:path';

export default async function globalTeardown(): Promise<void> {
  const database = globalThis.embeddedTestDatabase;
  if (!database) return;
  await database.stop();
  await rm(path.dirname(database.dataDir), { recursive: true, force: true });
}
