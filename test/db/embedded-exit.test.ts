// An embedded FerretDB that ends on its own (a crash, the OOM killer) is said as an error with how it
// ended, so an operator whose requests start failing sees why. What FerretDB wrote last may quote a
// request's documents: it goes to a private file in its data folder, never into the log line. One the
// server stops says nothing.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { startEmbeddedDatabase } from '../../src/db/embedded';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'exit-data-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** An embedded FerretDB in a folder of its own, and its first warning when it comes. */
async function start(name: string) {
  const warnings: string[] = [];
  let warned!: (message: string) => void;
  const firstWarning = new Promise<string>((resolve) => (warned = resolve));
  const database = await startEmbeddedDatabase({
    engine: 'ferretdb',
    dataDir: path.join(root, name),
    cacheDir: loadConfig({}).toolCacheDir,
    log: () => undefined,
    warn: (message) => {
      warnings.push(message);
      warned(message);
    },
  });
  // Only the FerretDB started here has this data folder's socket on its command line.
  const signal = (name: string) =>
    execFileSync('pkill', [`-${name}`, '-f', '--', `listen-unix=${(database.address as { socket: string }).socket}`]);
  return { database, warnings, firstWarning, signal };
}

it('warns with the signal when FerretDB is killed under the server', async () => {
  const { database, firstWarning, signal } = await start('killed');
  try {
    signal('KILL');
    expect(await firstWarning).toMatch(/^FerretDB \(.+\) ended on its own with signal SIGKILL, saying nothing$/);
  } finally {
    await database.stop();
  }
}, 60_000);

it('keeps what FerretDB wrote as it ended in a private file, and names the file, not the words, in the warning', async () => {
  const { database, firstWarning, signal } = await start('dumped');
  try {
    // Go answers SIGQUIT by writing every goroutine's stack to stderr and exiting with code 2.
    signal('QUIT');
    const warning = await firstWarning;
    const file = path.join(database.dataDir, 'ferretdb-exit.log');
    expect(warning).toMatch(/^FerretDB \(.+\) ended on its own with code 2; what it wrote last is in /);
    expect(warning.endsWith(file)).toBe(true);
    expect(warning).not.toContain('goroutine');
    expect(await readFile(file, 'utf8')).toContain('goroutine');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  } finally {
    await database.stop();
  }
}, 60_000);

it('says nothing when the server stops it', async () => {
  const { database, warnings } = await start('stopped');
  // stop() resolves from the same 'exit' event whose other listener would warn.
  await database.stop();
  expect(warnings).toEqual([]);
}, 60_000);
