// One embedded database per data directory. The first process to need it (the server or a command)
// starts the engine and records itself in DATA_DIR/embedded-owner.json, created exclusively, so two
// processes never start two engines on the same files. A later process connects to a server's engine;
// it waits for a command's (which stops its engine when it ends) or for one still starting. An owner
// that died (its pid is gone) is replaced by the next process to start.
import { createConnection } from 'node:net';
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startEmbeddedDatabase, type EmbeddedDatabase, type EmbeddedOptions } from './embedded';

/** A server keeps the engine for as long as it runs; a command only for its own few seconds. */
export type EmbeddedRole = 'server' | 'command';

interface Owner {
  pid: number;
  role: EmbeddedRole;
  engine?: EmbeddedDatabase['engine'];
  /** Absent while the engine is starting (the first start may build FerretDB for minutes). */
  port?: number;
  uri?: string;
}

export interface SharedEmbeddedDatabase extends EmbeddedDatabase {
  /** True when another process started the engine and this one only connects to it. */
  readonly borrowed: boolean;
}

const POLL_MS = 250;
/** How long a process waits for another to finish starting or using the engine: FerretDB's first build included. */
const MAX_WAIT_MS = 15 * 60_000;
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

async function readOwner(file: string): Promise<{ owner: Owner; text: string } | null> {
  try {
    const text = await readFile(file, 'utf8');
    return { owner: JSON.parse(text) as Owner, text };
  } catch {
    return null;
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port, timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Removes an owner file left by a dead process, unless another process replaced it meanwhile. */
async function removeStale(file: string, staleText: string): Promise<void> {
  const now = await readOwner(file);
  if (now?.text === staleText) await unlink(file).catch(() => undefined);
}

async function becomeOwner(file: string, role: EmbeddedRole): Promise<boolean> {
  try {
    await writeFile(file, JSON.stringify({ pid: process.pid, role } satisfies Owner), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

export async function shareEmbeddedDatabase(
  options: EmbeddedOptions & { role: EmbeddedRole },
  start: (options: EmbeddedOptions) => Promise<EmbeddedDatabase> = startEmbeddedDatabase,
): Promise<SharedEmbeddedDatabase> {
  await mkdir(options.dataDir, { recursive: true });
  const file = ownerFile(options.dataDir);
  const startedWaiting = Date.now();
  let lastLog = startedWaiting;
  while (Date.now() - startedWaiting < MAX_WAIT_MS) {
    const found = await readOwner(file);
    if (found && isAlive(found.owner.pid)) {
      const { owner } = found;
      const lasting = owner.role === 'server' || owner.pid === process.pid;
      if (lasting && owner.port !== undefined && owner.uri && owner.engine && (await answers(owner.port))) {
        const { engine, uri, port } = owner;
        return { engine, uri, port, dataDir: options.dataDir, borrowed: true, stop: async () => undefined };
      }
      if (Date.now() - lastLog >= LOG_EVERY_MS) {
        lastLog = Date.now();
        options.log(
          owner.port === undefined
            ? `waiting for process ${owner.pid} to finish starting the embedded database in ${options.dataDir}`
            : `waiting for ${owner.role} process ${owner.pid} to finish with the embedded database in ${options.dataDir}`,
        );
      }
      await pause(POLL_MS);
      continue;
    }
    if (found) await removeStale(file, found.text);
    if (!(await becomeOwner(file, options.role))) continue;
    let database: EmbeddedDatabase;
    try {
      database = await start(options);
    } catch (err) {
      await unlink(file).catch(() => undefined);
      throw err;
    }
    await writeFile(
      file,
      JSON.stringify({
        pid: process.pid,
        role: options.role,
        engine: database.engine,
        port: database.port,
        uri: database.uri,
      } satisfies Owner),
      {
        mode: 0o600,
      },
    );
    return {
      ...database,
      borrowed: false,
      async stop() {
        await database.stop();
        const mine = await readOwner(file);
        if (mine?.owner.pid === process.pid) await unlink(file).catch(() => undefined);
      },
    };
  }
  throw new Error(
    `the embedded database in ${options.dataDir} stayed busy for ${MAX_WAIT_MS / 60_000} minutes; stop the other process or set MONGODB_URI`,
  );
}
