// Runs the server as a real process (dist/server.js, which the global setup compiles when stale), for
// tests of signals and of several instances sharing one database.
import { spawn, type ChildProcess } from 'node:child_process';
import { findFreePort, waitForPort } from '../../src/db/ports';
import { TEST_JWT_SECRET } from './app';
import { ROOT } from './commands';

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** `env` may depend on the port the server will listen on (its PUBLIC_URL, say). */
export async function spawnServer(env: Record<string, string> | ((port: number) => Record<string, string>)): Promise<ServerProcess> {
  const port = await findFreePort();
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
  await Promise.race([waitForPort(port, 60_000), exited.then((code) => Promise.reject(new Error(`server exited with ${code}`)))]);
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
