import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded';
import { describeAddress } from '../../src/db/ports';

declare global {
  var embeddedTestDatabase: EmbeddedDatabase | undefined;
}

export default async function globalSetup(): Promise<void> {
  // The command tests run the compiled commands: compile now if a source changed (a moment otherwise).
  execFileSync(process.execPath, [path.resolve(__dirname, '../../scripts/build.cjs')], { stdio: 'inherit' });
  if (process.env.MONGODB_URI) return;
  const { embeddedEngine, toolCacheDir } = loadConfig(process.env);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'rest-api-test-db-'));
  const database = await startEmbeddedDatabase({
    engine: embeddedEngine,
    dataDir,
    cacheDir: toolCacheDir,
    log: (message) => process.stderr.write(`${message}\n`),
  });
  process.stderr.write(`\ntests use an embedded ${database.engine} database on ${describeAddress(database.address)}\n`);
  globalThis.embeddedTestDatabase = database;
  // Workers start after this and inherit the variable.
  process.env.MONGODB_URI = database.uri;
}
