// Who owns the embedded engine of a data directory: an owner that died is replaced, and a command's
// engine (it ends with the command) is waited for, never shared. The engine here is a stand-in start
// function: what is under test is the hand-over between processes, not the database. Then what
// another local user may have planted there (issue 36, findings 8 and 9).
import { spawn } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
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
  return { engine: 'mongod', uri: 'mongodb://127.0.0.1:9/', address: { port: 9 }, dataDir: options.dataDir, stop: async () => undefined };
};
const options = () => ({ engine: 'ferretdb' as const, dataDir, cacheDir: dataDir, log: () => undefined, role: 'server' as const });
const ownerFile = () => path.join(dataDir, 'embedded-owner.json');

it('takes over from an owner whose process is gone, and removes its record when it stops', async () => {
  await writeFile(ownerFile(), JSON.stringify({ pid: 2 ** 22 + 12345, role: 'server', engine: 'ferretdb' }), { mode: 0o600 });
  const database = await shareEmbeddedDatabase(options(), start);
  expect(database.borrowed).toBe(false);
  expect(JSON.parse(await readFile(ownerFile(), 'utf8'))).toMatchObject({ pid: process.pid, role: 'server', port: 9 });
  await database.stop();
  await expect(readFile(ownerFile(), 'utf8')).rejects.toThrow();
});

it("waits for a command's engine to end instead of sharing it, then starts its own", async () => {
  const command = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1500)']);
  await writeFile(ownerFile(), JSON.stringify({ pid: command.pid, role: 'command' }), { mode: 0o600 });
  const before = started.length;
  const exited = new Promise((resolve) => command.once('exit', resolve));
  const database = await shareEmbeddedDatabase(options(), start);
  await exited;
  expect(database.borrowed).toBe(false);
  expect(started.length).toBe(before + 1);
  await database.stop();
});

/** A clock that moves a second each time it is read: waits that count time end without sleeping. */
function steppingClock() {
  let now = 0;
  return () => (now += 1000);
}

it('takes over within seconds from a record naming a live process whose engine does not answer, and never uses its address', async () => {
  // pid 1 always lives; the URI it names is ignored (where to connect is derived, never read).
  await writeFile(ownerFile(), JSON.stringify({ pid: 1, role: 'server', engine: 'ferretdb', uri: 'mongodb://203.0.113.9:27017/' }), {
    mode: 0o600,
  });
  const database = await shareEmbeddedDatabase(options(), start, steppingClock());
  expect(database.borrowed).toBe(false);
  expect(database.uri).toBe('mongodb://127.0.0.1:9/');
  await database.stop();
});

it('makes DATA_DIR 0700, and closes one that others could read', async () => {
  const fresh = path.join(dataDir, 'fresh');
  const database = await shareEmbeddedDatabase({ ...options(), dataDir: fresh }, start);
  await database.stop();
  expect((await stat(fresh)).mode & 0o777).toBe(0o700);
  const old = path.join(dataDir, 'old');
  await mkdir(old, { mode: 0o755 });
  await chmod(old, 0o755);
  await (await shareEmbeddedDatabase({ ...options(), dataDir: old }, start)).stop();
  expect((await stat(old)).mode & 0o777).toBe(0o700);
});

it('refuses a DATA_DIR others may write to, and an owner record others may write or that is a link', async () => {
  const open = path.join(dataDir, 'open');
  await mkdir(open);
  await chmod(open, 0o777);
  await expect(shareEmbeddedDatabase({ ...options(), dataDir: open }, start)).rejects.toThrow(/may be written by other users \(mode 777\)/);

  await writeFile(ownerFile(), JSON.stringify({ pid: 1, role: 'server', engine: 'ferretdb' }));
  await chmod(ownerFile(), 0o666);
  await expect(shareEmbeddedDatabase(options(), start)).rejects.toThrow(/embedded-owner\.json may be written by other users/);

  await rm(ownerFile());
  await writeFile(path.join(dataDir, 'elsewhere.json'), JSON.stringify({ pid: 1, role: 'server', engine: 'ferretdb' }), { mode: 0o600 });
  await symlink(path.join(dataDir, 'elsewhere.json'), ownerFile());
  await expect(shareEmbeddedDatabase(options(), start)).rejects.toThrow(/is a link/);
});

const asRoot = process.getuid?.() === 0 ? it : it.skip;

asRoot('refuses a DATA_DIR and an owner record that belong to another user (uid 65534 here)', async () => {
  const theirs = path.join(dataDir, 'theirs');
  await mkdir(theirs, { mode: 0o700 });
  await chown(theirs, 65534, 65534);
  await expect(shareEmbeddedDatabase({ ...options(), dataDir: theirs }, start)).rejects.toThrow(/belongs to another user \(uid 65534/);

  await writeFile(ownerFile(), JSON.stringify({ pid: 1, role: 'server', engine: 'ferretdb' }), { mode: 0o600 });
  await chown(ownerFile(), 65534, 65534);
  await expect(shareEmbeddedDatabase(options(), start)).rejects.toThrow(/embedded-owner\.json belongs to another user/);
});
