// Runs the server as a real process (dist/server.js, which the global setup compiles when stale), for
// tests of signals and of several instances sharing one database.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import { waitForPort } from '../../src/db/ports';
import { freePort } from './ports';
import { TEST_JWT_SECRET } from './app';
import { ROOT } from './commands';

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * Whether the process `pid` itself listens on the port (Linux: its socket's inode in /proc/net/tcp
 * or tcp6 among its file descriptors). Another test's server can hold the port: a port found
 * free is free again until the server binds it, so two spawns can be handed the same one, and the
 * loser's probes would reach the winner (then stopped by its own test: ECONNRESET). Elsewhere, true.
 */
function listensOn(pid: number | undefined, port: number): boolean {
  if (pid === undefined) return false;
  let table: string;
  try {
    // The server may listen on an IPv6 (dual-stack) address: its socket is then in tcp6.
    table = ['/proc/net/tcp', '/proc/net/tcp6'].map((file) => readFileSync(file, 'utf8')).join('\n');
  } catch {
    return true;
  }
  const wanted = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set(
    table
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[1]?.endsWith(wanted) && fields[3] === '0A')
      .map((fields) => `socket:[${fields[9]}]`),
  );
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** Whether this server's own liveness probe answers on the port (another process may hold it). */
function answersHealthz(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: 2_000 }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on('timeout', function (this: http.ClientRequest) {
        this.destroy();
      })
      .on('error', () => resolve(false));
  });
}

/** Attempts at a port: a free port can be taken by another test's process before the server listens on it. */
const PORT_ATTEMPTS = 3;

/**
 * `env` may depend on the port the server will listen on (its PUBLIC_URL, say). Resolves once the
 * server itself answers /healthz on its port; if it exits first (the port was taken meanwhile), it
 * starts again on another port.
 */
export async function spawnServer(env: Record<string, string> | ((port: number) => Record<string, string>)): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const started = await spawnOnce(env);
    if (started !== null) return started;
    if (attempt >= PORT_ATTEMPTS) throw new Error(`the server exited before answering on ${PORT_ATTEMPTS} ports`);
  }
}

async function spawnOnce(env: Record<string, string> | ((port: number) => Record<string, string>)): Promise<ServerProcess | null> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      WEATHER_PORT: 'off',
      LOG_LEVEL: 'warn',
      RATE_LIMITS: 'off',
      // As in test/helpers/fast-hashing.ts: behaviour, not cost, is under test.
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME_COST: '1',
      JWT_SECRET: TEST_JWT_SECRET,
      SESSION_SECRET: 'test-session-secret-that-is-at-least-32-chars',
      SIGNING_KEYS_SECRET: 'test-signing-keys-secret-at-least-32-chars',
      ...(typeof env === 'function' ? env(port) : env),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  await Promise.race([waitForPort(port, 60_000), exited]);
  // Bounded: 60 s of probes, or the server's exit.
  for (let tries = 0; !gone && tries < 600 && !(await answersHealthz(port)); tries++) await new Promise((wait) => setTimeout(wait, 100));
  if (gone) return null;
  // The answer came from another test's server on the same port: this one cannot bind it; another port.
  if (!listensOn(child.pid, port)) {
    child.kill('SIGKILL');
    await exited;
    return null;
  }
  if (!(await answersHealthz(port))) {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`the server did not answer /healthz on port ${port}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
