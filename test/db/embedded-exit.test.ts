// An embedded FerretDB that ends on its own (a crash, the OOM killer) is said as an error with how it
// ended, so an operator whose requests start failing sees why; one the server stops says nothing.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { startEmbeddedDatabase } from '../../src/db/embedded';
import { eventually } from '../helpers/polling';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'exit-data-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const start = async (name: string, warnings: string[]) =>
  startEmbeddedDatabase({
    engine: 'ferretdb',
    dataDir: path.join(root, name),
    cacheDir: loadConfig({}).toolCacheDir,
    log: () => undefined,
    warn: (message) => warnings.push(message),
  });

it('warns with the signal when FerretDB is killed under the server', async () => {
  const warnings: string[] = [];
  const database = await start('killed', warnings);
  try {
    const { socket } = database.address as { socket: string };
    // Only the FerretDB started here has this data folder's socket on its command line.
    execFileSync('pkill', ['-KILL', '-f', '--', `listen-unix=${socket}`]);
    await eventually('the warning', () => warnings.length > 0);
    expect(warnings).toEqual([expect.stringMatching(/^FerretDB \(.+\) ended on its own with signal SIGKILL/)]);
  } finally {
    await database.stop();
  }
}, 60_000);

it('says nothing when the server stops it', async () => {
  const warnings: string[] = [];
  const database = await start('stopped', warnings);
  // stop() resolves from the same 'exit' event whose other listener would warn.
  await database.stop();
  expect(warnings).toEqual([]);
}, 60_000);
