// FerretDB 1.24.2 (SQLite backend) as the embedded database where no mongod binary is at hand.
// The binary is built once from tools/ferretdb with Go and cached per user, outside the clone.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitForPort } from './ports';

const execFileAsync = promisify(execFile);
const FERRETDB_VERSION = 'v1.24.2';
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
  try {
    const { stderr } = await execFileAsync('go', ['build', '-trimpath', '-o', partial, '.'], {
      cwd: TOOL_DIR,
      timeout: BUILD_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
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
  }
  log(`built FerretDB in ${Math.round((Date.now() - started) / 1000)} s`);
  await rename(partial, binary);
  return binary;
}

export interface RunningProcessDatabase {
  readonly uri: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** Starts FerretDB on 127.0.0.1:port with its SQLite files in dataDir. */
export async function startFerretDb(binary: string, dataDir: string, port: number): Promise<RunningProcessDatabase> {
  await mkdir(dataDir, { recursive: true });
  const child: ChildProcess = spawn(
    binary,
    [`-listen-addr=127.0.0.1:${port}`, `-sqlite-url=file:${path.resolve(dataDir)}/`, '-log-level=error', '-exit-on-stdin-close'],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

  try {
    await Promise.race([
      waitForPort(port, 30_000),
      exited.then((code) => {
        throw new Error(`FerretDB exited with code ${code} during start-up: ${stderr.trim()}`);
      }),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }

  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
