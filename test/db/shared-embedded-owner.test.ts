// Who owns the embedded engine of a data directory: an owner that died is replaced, and a command's
// engine (it ends with the command) is waited for, never shared. The engine here is a stand-in start
// function: what is under test is the hand-over between processes, not the database.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EmbeddedDatabase, EmbeddedOptions } from '../../src/db/embedded';
import { shareEmbeddedDatabase } from '../../src/db/shared-embedded';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-owner-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const started: string[] = [];
const start = async (options: EmbeddedOptions): Promise<EmbeddedDatabase> => {
  started.push(options.dataDir);
  return { engine: 'ferretdb', uri: 'mongodb://127.0.0.1:9/', port: 9, dataDir: options.dataDir, stop: async () => undefined };
};
const options = () => ({ engine: 'ferretdb' as const, dataDir, cacheDir: dataDir, log: () => undefined, role: 'server' as const });
const ownerFile = () => path.join(dataDir, 'embedded-owner.json');

it('takes over from an owner whose process is gone, and removes its record when it stops', async () => {
  await writeFile(ownerFile(), JSON.stringify({ pid: 2 ** 22 + 12345, role: 'server', engine: 'ferretdb', port: 1, uri: 'mongodb://x/' }));
  const database = await shareEmbeddedDatabase(options(), start);
  expect(database.borrowed).toBe(false);
  expect(JSON.parse(await readFile(ownerFile(), 'utf8'))).toMatchObject({ pid: process.pid, role: 'server', port: 9 });
  await database.stop();
  await expect(readFile(ownerFile(), 'utf8')).rejects.toThrow();
});

it("waits for a command's engine to end instead of sharing it, then starts its own", async () => {
  const command = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1500)']);
  await writeFile(ownerFile(), JSON.stringify({ pid: command.pid, role: 'command', engine: 'ferretdb', port: 9, uri: 'mongodb://x/' }));
  const before = started.length;
  const exited = new Promise((resolve) => command.once('exit', resolve));
  const database = await shareEmbeddedDatabase(options(), start);
  await exited;
  expect(database.borrowed).toBe(false);
  expect(started.length).toBe(before + 1);
  await database.stop();
});
