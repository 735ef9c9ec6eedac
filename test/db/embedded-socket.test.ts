// The embedded FerretDB listens on a Unix socket in its data folder; a DATA_DIR too deep for a
// socket's path (107 bytes) gets its socket in a folder of this user's in the temporary directory
// instead, made 0700, and the database works the same.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { loadConfig } from '../../src/config';
import { startEmbeddedDatabase } from '../../src/db/embedded';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'deep-data-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

it('serves a DATA_DIR too deep for a socket path from a private folder in the temporary directory', async () => {
  const { toolCacheDir } = loadConfig({});
  const dataDir = path.join(root, 'a'.repeat(50), 'b'.repeat(50));
  const database = await startEmbeddedDatabase({ engine: 'ferretdb', dataDir, cacheDir: toolCacheDir, log: () => undefined });
  try {
    expect(database.address).toEqual({ socket: expect.stringMatching(new RegExp(`^${tmpdir()}/rest-api-ferretdb-`)) });
    const socket = (database.address as { socket: string }).socket;
    expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(107);
    expect((await stat(path.dirname(socket))).mode & 0o777).toBe(0o700);
    const client = new MongoClient(database.uri, { serverSelectionTimeoutMS: 5000 });
    try {
      await client
        .db('deep')
        .collection('things')
        .insertOne({ _id: 'one' as never });
      expect(await client.db('deep').collection('things').countDocuments()).toBe(1);
    } finally {
      await client.close();
    }
  } finally {
    await database.stop();
    await rm(path.dirname((database.address as { socket: string }).socket), { recursive: true, force: true });
  }
}, 60_000);
