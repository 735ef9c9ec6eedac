// FerretDB 1.24.2 (SQLite backend) as the embedded database where no mongod binary is at hand.
// The binary is built once from tools/ferretdb with Go and cached per user, outside the clone. It
// listens only on a Unix socket inside its data folder (0700, like DATA_DIR): FerretDB has no
// authentication, and a TCP port would let every local user in.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, unlinkSync } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensurePrivateDir, writePrivateFile } from './data-dir';
import { waitForListener } from './ports';

const execFileAsync = promisify(execFile);
/** The FerretDB release, and the revision of tools/ferretdb's wrapper (a new one is built into a new folder). */
const FERRETDB_VERSION = 'v1.24.2-r3';
const TOOL_DIR = path.resolve(__dirname, '../../tools/ferretdb');
const BUILD_TIMEOUT_MS = 10 * 60_000;
const PROGRESS_EVERY_MS = 10_000;

function cachedBinaryPath(cacheDir: string): string {
  return path.join(cacheDir, `ferretdb-${FERRETDB_VERSION}`, 'ferretdb');
}

export async function isGoAvailable(): Promise<boolean> {
  try {
    await execFileAsync('go', ['version'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Returns the cached FerretDB binary, building it with Go the first time. */
export async function ensureFerretDbBinary(cacheDir: string, log: (message: string) => void): Promise<string> {
  const binary = cachedBinaryPath(cacheDir);
  if (existsSync(binary)) return binary;
  log(
    `building FerretDB ${FERRETDB_VERSION} with Go into ${binary}, once: one to several minutes ` +
      '(set MONGODB_URI to use a MongoDB of your own instead)',
  );
  await mkdir(path.dirname(binary), { recursive: true });
  // Build beside the target and rename, so a concurrent start never runs a half-written file.
  const partial = `${binary}.${process.pid}.partial`;
  const buildLog = `${binary}.build.log`;
  const started = Date.now();
  const progress = setInterval(() => {
    log(`still building FerretDB (${Math.round((Date.now() - started) / 1000)} s)`);
  }, PROGRESS_EVERY_MS);
  // Go's module and build caches would otherwise stay in the home folder (about 1 GB for this build):
  // a one-off pair beside the binary, removed after the build, unless the person set their own.
  const goCaches = path.join(path.dirname(binary), `go-caches.${process.pid}`);
  const goEnv = {
    ...process.env,
    GOMODCACHE: process.env.GOMODCACHE ?? path.join(goCaches, 'mod'),
    GOCACHE: process.env.GOCACHE ?? path.join(goCaches, 'build'),
    // The module cache is read-only by default, which would keep it from being removed.
    GOFLAGS: [process.env.GOFLAGS, '-modcacherw'].filter(Boolean).join(' '),
  };
  try {
    const { stderr } = await execFileAsync('go', ['build', '-trimpath', '-o', partial, '.'], {
      cwd: TOOL_DIR,
      timeout: BUILD_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
      env: goEnv,
    });
    await writeFile(buildLog, stderr);
  } catch (err) {
    const output = (err as { stderr?: string }).stderr ?? String(err);
    await writeFile(buildLog, output).catch(() => undefined);
    throw new Error(`building FerretDB failed (the whole output is in ${buildLog}):\n${output.split('\n').slice(-30).join('\n')}`, {
      cause: err,
    });
  } finally {
    clearInterval(progress);
    await rm(goCaches, { recursive: true, force: true });
  }
  const size = (await stat(partial)).size;
  log(`built FerretDB in ${Math.round((Date.now() - started) / 1000)} s (${Math.round(size / 1024 / 1024)} MB; Go's caches removed)`);
  await rename(partial, binary);
  return binary;
}

export interface RunningProcessDatabase {
  readonly uri: string;
  readonly socket: string;
  stop(): Promise<void>;
}

/** Linux's limit on a Unix socket's path (sun_path holds 108 bytes with the final NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * Where FerretDB listens for the data in dataDir: a socket inside it, or, when that path is too long
 * for a socket (a deep DATA_DIR), inside a folder of this user's in the temporary directory named
 * after it (made 0700 and checked like DATA_DIR).
 */
export function ferretSocketOf(dataDir: string): string {
  const inside = path.join(path.resolve(dataDir), 'ferretdb.sock');
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH) return inside;
  const name = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
  return path.join(tmpdir(), `rest-api-ferretdb-${process.getuid?.() ?? 'user'}-${name}`, 'ferretdb.sock');
}

/** The connection string of a Unix socket (its path in the host part, percent-encoded). */
export const socketUri = (socket: string): string => `mongodb://${encodeURIComponent(socket)}/`;

/** Removes the socket a FerretDB that died left behind (listening would fail on it); only a socket. */
function removeLeftSocket(socket: string): void {
  try {
    if (lstatSync(socket).isSocket()) unlinkSync(socket);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Writes FerretDB's last output owner-only; false when it could not be written. */
function keepLastWords(file: string, text: string): boolean {
  try {
    return writePrivateFile(file, `${text}\n`, false);
  } catch {
    return false;
  }
}

/**
 * Starts FerretDB on a Unix socket in dataDir, with its SQLite files there. Should it end on its own
 * later (a crash), warn says so with its exit code or signal, and where the last of what it wrote is kept.
 */
export async function startFerretDb(binary: string, dataDir: string, warn: (message: string) => void): Promise<RunningProcessDatabase> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const socket = ferretSocketOf(dataDir);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    throw new Error(`the socket path ${socket} is longer than ${MAX_SOCKET_PATH} bytes: use a shorter TMPDIR, or set MONGODB_URI`);
  }
  ensurePrivateDir(path.dirname(socket));
  removeLeftSocket(socket);
  const child: ChildProcess = spawn(
    binary,
    ['-listen-addr=', `-listen-unix=${socket}`, `-sqlite-url=file:${path.resolve(dataDir)}/`, '-log-level=error', '-exit-on-stdin-close'],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let stopping = false;
  let started = false;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.once('exit', (code, signal) => {
    if (stopping || !started) return;
    // What FerretDB wrote may quote a request's documents: it goes to a private file beside the
    // database's own files, never into the log.
    const said = stderr.trim();
    const lastWords = path.join(path.resolve(dataDir), 'ferretdb-exit.log');
    const kept = said !== '' && keepLastWords(lastWords, said);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    warn(`FerretDB (${socket}) ended on its own with ${how}${kept ? `; what it wrote last is in ${lastWords}` : ', saying nothing'}`);
  });

  try {
    await Promise.race([
      waitForListener({ socket }, 30_000),
      exited.then((code) => {
        throw new Error(`FerretDB exited with code ${code} during start-up: ${stderr.trim()}`);
      }),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  started = true;

  return {
    uri: socketUri(socket),
    socket,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
