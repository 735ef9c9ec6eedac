// One embedded database per data directory: the server and every command started against the same
// DATA_DIR, at the same time, use one engine, so nothing breaks and nothing is lost.
import { mkdtemp, readdir, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCommand } from '../helpers/commands';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

const SECRET = 'test-signing-keys-secret-at-least-32-chars';
let dataDir: string;
let server: ServerProcess;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'shared-embedded-'));
  // No MONGODB_URI: the embedded engine (FerretDB, built once for the whole suite) in dataDir.
  env = { MONGODB_URI: '', DATA_DIR: dataDir, EMBEDDED_DB_ENGINE: 'ferretdb', SIGNING_KEYS_SECRET: SECRET, LOG_LEVEL: 'warn' };
  server = await spawnServer(env);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const post = (body: unknown) =>
  fetch(`${server.url}/users`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

it('runs seed, oauth:client and keys at once while the server runs, and the server then takes sign-ups', async () => {
  // The commands create collections the server has not used yet (users' counters, clients, keys):
  // with an engine of their own on the same files, the server's engine would not know them.
  await Promise.all([
    runCommand('seed', ['--demo'], { ...env, PUBLIC_URL: server.url }),
    runCommand(
      'oauth-client',
      [
        'create',
        '--name',
        'Shared',
        '--website',
        'https://shared.example.com',
        '--redirect-uri',
        'https://shared.example.com/cb',
        '--json',
      ],
      env,
    ),
    runCommand('keys', ['list'], env),
  ]);
  for (let i = 0; i < 5; i += 1) expect((await post({ email: `shared${i}@example.com`, password: 'shared-password' })).status).toBe(201);
  const admin = await runCommand('make-admin', ['shared0@example.com'], env);
  expect(admin.stdout).toContain('shared0@example.com');
  // What the commands wrote, the server reads, and the other way round.
  const demo = await fetch(`${server.url}/auth`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'demo@example.com', password: 'demo-password' }),
  });
  expect(demo.status).toBe(201);
  const listed = JSON.parse((await runCommand('oauth-client', ['list', '--json'], env)).stdout) as { name: string }[];
  expect(listed.map((client) => client.name)).toEqual(expect.arrayContaining(['Shared']));
  const users = (await (await fetch(`${server.url}/users?limit=100`)).json()) as { email: string }[];
  expect(users.filter((user) => user.email.startsWith('shared'))).toHaveLength(5);
}, 120_000);

it('has a command connect to the engine the server started instead of starting a second one on the same files', async () => {
  const owner = JSON.parse(await readFile(path.join(dataDir, 'embedded-owner.json'), 'utf8')) as Record<string, unknown>;
  expect(owner).toEqual({ pid: server.child.pid, role: 'server', engine: 'ferretdb' });
  const run = await runCommand('seed', [], { ...env, LOG_LEVEL: 'info' });
  const socket = path.join(dataDir, 'ferretdb', 'ferretdb.sock');
  expect(run.stdout + run.stderr).toContain(`connected to the embedded ferretdb database another process runs on ${socket}`);
});

it('keeps the data to this user: DATA_DIR and the engine folder 0700, the owner record 0600, FerretDB on a socket and no port', async () => {
  expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
  expect((await stat(path.join(dataDir, 'ferretdb'))).mode & 0o777).toBe(0o700);
  expect((await stat(path.join(dataDir, 'embedded-owner.json'))).mode & 0o777).toBe(0o600);
  expect((await stat(path.join(dataDir, 'ferretdb', 'ferretdb.sock'))).isSocket()).toBe(true);
  // No TCP socket of the engine's process listens (Linux lists them in /proc/net/tcp by inode).
  const engine = (await readFile(`/proc/${server.child.pid}/task/${server.child.pid}/children`, 'utf8')).trim().split(/\s+/).map(Number);
  expect(engine).toHaveLength(1);
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${engine[0]}/fd`)) {
    const target = await readlink(`/proc/${engine[0]}/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const listening = (await readFile('/proc/net/tcp', 'utf8')) + (await readFile('/proc/net/tcp6', 'utf8'));
  const tcpOfEngine = listening
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === '0A' && inodes.has(fields[9]));
  expect(inodes.size).toBeGreaterThan(0);
  expect(tcpOfEngine).toEqual([]);
});
