// The embedded database used when MONGODB_URI is unset, by `npm start` and by the tests alike.
// Engine choice ("auto"): a mongod already on disk, else FerretDB built with Go, else a mongod that
// mongodb-memory-server downloads. Data persists in the given directory across restarts.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { EmbeddedEngine } from '../config';
import { ensureFerretDbBinary, isGoAvailable, startFerretDb } from './ferretdb';
import { findFreePort } from './ports';

export interface EmbeddedDatabase {
  readonly engine: 'mongod' | 'ferretdb';
  readonly uri: string;
  readonly port: number;
  readonly dataDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  engine: EmbeddedEngine;
  /** Root folder; each engine keeps its files in a subfolder named after it. */
  dataDir: string;
  /** Where the FerretDB binary is built once and kept (config.toolCacheDir). */
  cacheDir: string;
  /** Fixed port, to restart on the same address; a free one by default. */
  port?: number;
  log: (message: string) => void;
}

// mongodb-memory-server is loaded only when an embedded database starts: a server or command given
// MONGODB_URI starts about a fifth of a second sooner without it.
const memoryServer = () => import('mongodb-memory-server');

async function localMongodPath(): Promise<string | undefined> {
  const { DryMongoBinary } = await memoryServer();
  return DryMongoBinary.locateBinary(await DryMongoBinary.generateOptions());
}

async function startMongod(dataDir: string, port: number): Promise<EmbeddedDatabase> {
  await mkdir(dataDir, { recursive: true });
  const { MongoMemoryServer } = await memoryServer();
  const server = await MongoMemoryServer.create({
    instance: { dbPath: dataDir, port, ip: '127.0.0.1', storageEngine: 'wiredTiger' },
  });
  return {
    engine: 'mongod',
    uri: server.getUri(),
    port,
    dataDir,
    // Keep the files: the data must survive a restart.
    stop: async () => {
      await server.stop({ doCleanup: false });
    },
  };
}

async function startFerret(dataDir: string, port: number, options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const binary = await ensureFerretDbBinary(options.cacheDir, options.log);
  const running = await startFerretDb(binary, dataDir, port);
  return { engine: 'ferretdb', dataDir, ...running };
}

async function chooseEngine(requested: EmbeddedEngine): Promise<'mongod' | 'ferretdb'> {
  if (requested !== 'auto') return requested;
  if (await localMongodPath()) return 'mongod';
  if (await isGoAvailable()) return 'ferretdb';
  return 'mongod';
}

export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const engine = await chooseEngine(options.engine);
  const port = options.port ?? (await findFreePort());
  const dataDir = path.resolve(options.dataDir, engine);
  try {
    return engine === 'mongod' ? await startMongod(dataDir, port) : await startFerret(dataDir, port, options);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `Could not start the embedded ${engine} database: ${reason}\n` +
        'Set MONGODB_URI to a MongoDB-compatible server (for example mongodb://127.0.0.1:27017/api), ' +
        'or install Go so FerretDB can be built, or make a mongod binary available to mongodb-memory-server.',
      { cause: err },
    );
  }
}
