// The embedded database used when MONGODB_URI is unset, by `npm start` and by the tests alike.
// Engine choice ("auto"): a mongod already on disk, else FerretDB built with Go, else a mongod that
// mongodb-memory-server downloads. Data persists in the given directory across restarts.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { EmbeddedEngine } from '../config';
import { ensureFerretDbBinary, isGoAvailable, startFerretDb } from './ferretdb';
import { findFreePort, type LocalAddress } from './ports';

export interface EmbeddedDatabase {
  readonly engine: 'mongod' | 'ferretdb';
  readonly uri: string;
  /** FerretDB's Unix socket, or mongod's loopback port. */
  readonly address: LocalAddress;
  readonly dataDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  engine: EmbeddedEngine;
  /** Root folder; each engine keeps its files in a subfolder named after it. */
  dataDir: string;
  /** Where the FerretDB binary is built once and kept (config.toolCacheDir). */
  cacheDir: string;
  /** mongod's port, to restart on the same address; a free one by default (FerretDB has its socket). */
  port?: number;
  log: (message: string) => void;
  /** Where an engine that ends on its own (a crash) is reported; log when unset. */
  warn?: (message: string) => void;
}

// mongodb-memory-server is loaded only when an embedded database starts: a server or command given
// MONGODB_URI starts about a fifth of a second sooner without it.
const memoryServer = () => import('mongodb-memory-server');

async function localMongodPath(): Promise<string | undefined> {
  const { DryMongoBinary } = await memoryServer();
  return DryMongoBinary.locateBinary(await DryMongoBinary.generateOptions());
}

async function startMongod(dataDir: string, port: number): Promise<EmbeddedDatabase> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { MongoMemoryServer } = await memoryServer();
  const server = await MongoMemoryServer.create({
    instance: { dbPath: dataDir, port, ip: '127.0.0.1', storageEngine: 'wiredTiger' },
  });
  return {
    engine: 'mongod',
    uri: server.getUri(),
    address: { port },
    dataDir,
    // Keep the files: the data must survive a restart.
    stop: async () => {
      await server.stop({ doCleanup: false });
    },
  };
}

async function startFerret(dataDir: string, options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const binary = await ensureFerretDbBinary(options.cacheDir, options.log);
  const { uri, socket, stop } = await startFerretDb(binary, dataDir, options.warn ?? options.log);
  return { engine: 'ferretdb', dataDir, uri, address: { socket }, stop };
}

async function chooseEngine(requested: EmbeddedEngine): Promise<'mongod' | 'ferretdb'> {
  if (requested !== 'auto') return requested;
  if (await localMongodPath()) return 'mongod';
  if (await isGoAvailable()) return 'ferretdb';
  return 'mongod';
}

export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const engine = await chooseEngine(options.engine);
  const dataDir = path.resolve(options.dataDir, engine);
  try {
    return engine === 'mongod' ? await startMongod(dataDir, options.port ?? (await findFreePort())) : await startFerret(dataDir, options);
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
