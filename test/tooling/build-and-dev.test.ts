// `npm run build` skips the compiler when nothing changed; `npm run dev` serves with readable logs.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, utimes, writeFile, mkdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testDatabaseUriWithName } from '../helpers/db';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { isStale } = require('../../scripts/build.cjs') as { isStale: (stamp: string, inputs: string[]) => boolean };

describe('the build stamp', () => {
  let root: string;
  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
  const inputs = () => [path.join(root, 'src'), path.join(root, 'tsconfig.json')];
  const stamp = () => path.join(root, 'stamp');

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'build-stamp-'));
    await mkdir(path.join(root, 'src', 'feature'), { recursive: true });
    await writeFile(path.join(root, 'src', 'feature', 'a.ts'), 'export {};');
    await writeFile(path.join(root, 'tsconfig.json'), '{}');
    for (const entry of ['src/feature/a.ts', 'src/feature', 'src', 'tsconfig.json']) await utimes(path.join(root, entry), at(0), at(0));
  });

  afterEach(() => rm(root, { recursive: true, force: true }));

  it('is stale without a stamp, fresh after one, and stale again when a source is edited, added or deleted', async () => {
    expect(isStale(stamp(), inputs())).toBe(true);
    await writeFile(stamp(), '');
    await utimes(stamp(), at(10), at(10));
    expect(isStale(stamp(), inputs())).toBe(false);

    await utimes(path.join(root, 'src', 'feature', 'a.ts'), at(20), at(20));
    expect(isStale(stamp(), inputs())).toBe(true);
    await utimes(stamp(), at(30), at(30));
    expect(isStale(stamp(), inputs())).toBe(false);

    // Adding or deleting a file changes only its folder's time.
    await unlink(path.join(root, 'src', 'feature', 'a.ts'));
    await utimes(path.join(root, 'src', 'feature'), at(40), at(40));
    expect(isStale(stamp(), inputs())).toBe(true);
    await utimes(stamp(), at(50), at(50));
    await utimes(path.join(root, 'tsconfig.json'), at(60), at(60));
    expect(isStale(stamp(), inputs())).toBe(true);
  });
});

describe('npm run dev', () => {
  it('serves the app and writes one readable line per request instead of JSON', async () => {
    // PORT=0: the server takes a free port itself and says which (no port picked here that another
    // process could take first).
    const child = spawn('npm', ['run', '--silent', 'dev'], {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        ...process.env,
        NODE_ENV: 'development',
        PORT: '0',
        WEATHER_PORT: 'off',
        MONGODB_URI: testDatabaseUriWithName(),
        LOG_LEVEL: 'info',
        JWT_SECRET: 'dev-test-jwt-secret-at-least-32-characters',
        SESSION_SECRET: 'dev-test-session-secret-at-least-32-chars',
        SIGNING_KEYS_SECRET: 'dev-test-signing-keys-secret-32-chars-min',
      },
      // A process group of its own: npm, the shell, node --watch, the server and pino-pretty stop together.
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      // A loaded machine (CI runs the suites one after another on two cores) may take a while to compile.
      const deadline = Date.now() + 80_000;
      const listening = () => /listening on http:\/\/localhost:(\d+)/.exec(output)?.[1];
      while (!listening() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const port = listening();
      expect(port).toEqual(expect.stringMatching(/^\d+$/));
      const res = await fetch(`http://127.0.0.1:${port}/hello`, { headers: { 'X-Request-Id': 'dev-mode-probe' } });
      expect(await res.text()).toBe('hello!');
      while (!output.includes('dev-mode-probe') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const line = output.split('\n').find((text) => text.includes('dev-mode-probe'));
      expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed \{"reqId":"dev-mode-probe"/);
    } finally {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
  }, 100_000);
});
