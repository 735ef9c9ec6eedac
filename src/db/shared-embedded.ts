// One embedded database per data directory. The first process to need it (the server or a command)
// starts the engine and records itself in DATA_DIR/embedded-owner.json, created exclusively, so two
// processes never start two engines on the same files. A later process connects to a server's engine;
// it waits for a command's (which stops its engine when it ends) or for one still starting. An owner
// that died (its pid is gone) is replaced by the next process to start.
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from './data-dir';
import { startEmbeddedDatabase, type EmbeddedDatabase, type EmbeddedOptions } from './embedded';
import { ferretSocketOf, socketUri } from './ferretdb';
import { answers, type LocalAddress } from './ports';

/** A server keeps the engine for as long as it runs; a command only for its own few seconds. */
export type EmbeddedRole = 'server' | 'command';

/**
 * The record of the process that runs the engine. Where to connect is derived from it, never read
 * from it: FerretDB's socket is in DATA_DIR, mongod's port is on 127.0.0.1.
 */
interface Owner {
  pid: number;
  role: EmbeddedRole;
  /** Absent while the engine is starting (the first start may build FerretDB for minutes). */
  engine?: EmbeddedDatabase['engine'];
  /** mongod's port. */
  port?: number;
}

export interface SharedEmbeddedDatabase extends EmbeddedDatabase {
  /** True when another process started the engine and this one only connects to it. */
  readonly borrowed: boolean;
}

const POLL_MS = 250;
/** How long a process waits for another to finish starting or using the engine: FerretDB's first build included. */
const MAX_WAIT_MS = 15 * 60_000;
/**
 * An owner whose engine stopped answering for this long is taken as gone even if its pid lives (the
 * pid may be another process's by now, or the engine died under it).
 */
const SILENT_OWNER_MS = 5_000;
const LOG_EVERY_MS = 5_000;

const ownerFile = (dataDir: string) => path.join(dataDir, 'embedded-owner.json');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The owner record, or null when there is none or it is not readable JSON (one being written). */
function readOwner(file: string): { owner: Owner; text: string } | null {
  const text = readPrivateFile(file);
  if (text === null) return null;
  try {
    const owner = JSON.parse(text) as Owner;
    return Number.isSafeInteger(owner.pid) && owner.pid > 0 ? { owner, text } : null;
  } catch {
    return null;
  }
}

/** Where a ready owner's engine listens, and its connection string. */
function endpointOf(owner: Owner, dataDir: string): { address: LocalAddress; uri: string } | null {
  if (owner.engine === 'ferretdb') {
    const socket = ferretSocketOf(path.resolve(dataDir, 'ferretdb'));
    return { address: { socket }, uri: socketUri(socket) };
  }
  if (owner.engine === 'mongod' && Number.isSafeInteger(owner.port) && owner.port! > 0 && owner.port! < 65536) {
    return { address: { port: owner.port! }, uri: `mongodb://127.0.0.1:${owner.port}/` };
  }
  return null;
}

/** Removes an owner file left by a dead process, unless another process replaced it meanwhile. */
async function removeStale(file: string, staleText: string): Promise<void> {
  if (readOwner(file)?.text === staleText) await unlink(file).catch(() => undefined);
}

const becomeOwner = (file: string, role: EmbeddedRole): boolean =>
  writePrivateFile(file, JSON.stringify({ pid: process.pid, role } satisfies Owner), true);

export async function shareEmbeddedDatabase(
  options: EmbeddedOptions & { role: EmbeddedRole },
  start: (options: EmbeddedOptions) => Promise<EmbeddedDatabase> = startEmbeddedDatabase,
  now: () => number = Date.now,
): Promise<SharedEmbeddedDatabase> {
  ensurePrivateDir(options.dataDir);
  const file = ownerFile(options.dataDir);
  const startedWaiting = now();
  let lastLog = startedWaiting;
  /** Since when the recorded owner's engine has not answered (its record's text, to notice a new one). */
  let silent: { text: string; since: number } | null = null;
  while (now() - startedWaiting < MAX_WAIT_MS) {
    const found = readOwner(file);
    if (found && isAlive(found.owner.pid)) {
      const { owner } = found;
      const endpoint = endpointOf(owner, options.dataDir);
      const answering = endpoint !== null && (await answers(endpoint.address));
      const lasting = owner.role === 'server' || owner.pid === process.pid;
      if (lasting && answering) {
        return { engine: owner.engine!, ...endpoint, dataDir: options.dataDir, borrowed: true, stop: async () => undefined };
      }
      if (endpoint !== null && !answering) {
        const since: number = silent !== null && silent.text === found.text ? silent.since : now();
        silent = { text: found.text, since };
        if (now() - since >= SILENT_OWNER_MS) {
          options.log(`process ${owner.pid} is recorded as running the embedded database, but it does not answer: taking over`);
          await removeStale(file, found.text);
          continue;
        }
      }
      if (now() - lastLog >= LOG_EVERY_MS) {
        lastLog = now();
        options.log(
          endpoint === null
            ? `waiting for process ${owner.pid} to finish starting the embedded database in ${options.dataDir}`
            : `waiting for ${owner.role} process ${owner.pid} to finish with the embedded database in ${options.dataDir}`,
        );
      }
      await pause(POLL_MS);
      continue;
    }
    if (found) await removeStale(file, found.text);
    if (!becomeOwner(file, options.role)) continue;
    let database: EmbeddedDatabase;
    try {
      database = await start(options);
    } catch (err) {
      await unlink(file).catch(() => undefined);
      throw err;
    }
    const port = 'port' in database.address ? database.address.port : undefined;
    writePrivateFile(file, JSON.stringify({ pid: process.pid, role: options.role, engine: database.engine, port } satisfies Owner), false);
    return {
      ...database,
      borrowed: false,
      async stop() {
        await database.stop();
        if (readOwner(file)?.owner.pid === process.pid) await unlink(file).catch(() => undefined);
      },
    };
  }
  throw new Error(
    `the embedded database in ${options.dataDir} stayed busy for ${MAX_WAIT_MS / 60_000} minutes; stop the other process or set MONGODB_URI`,
  );
}
