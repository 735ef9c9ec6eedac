// The npm run commands as real processes, from the build that the global setup brings up to date
// (a compiled command starts in a fraction of the time ts-node takes).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

export const ROOT = path.resolve(__dirname, '../..');

export type Command = 'oauth-client' | 'seed' | 'keys' | 'make-admin' | 'unlock' | 'users' | 'resources';

/** Runs dist/cli/<command>.js; rejects (with code, stdout and stderr) when it exits non-zero. */
export function runCommand(command: Command, args: string[], env: Record<string, string>) {
  return promisify(execFile)(process.execPath, [path.join('dist', 'cli', `${command}.js`), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
}
