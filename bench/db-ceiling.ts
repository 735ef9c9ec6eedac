// The database's own ceiling for a route: the same reads and writes the route makes, with the bare
// driver (no Express, no Mongoose), ten at a time as the load generator's connections are, for a
// fixed time. A route at 100% of its ceiling spends nothing beyond what the database needs.
import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';

interface Options {
  uri: string;
  seconds: number;
  connections: number;
  /** user: GET /users/:id reads one user by id. token: client_credentials reads the client and inserts a token. */
  work: 'user' | 'token';
  id: string;
}

async function main(): Promise<void> {
  const { uri, seconds, connections, work, id } = JSON.parse(process.argv[2]) as Options;
  const client = await new mongoose.mongo.MongoClient(uri).connect();
  const db = client.db();
  const users = db.collection<{ _id: string }>('users');
  const clients = db.collection<{ _id: string }>('oauth_clients');
  const tokens = db.collection<{ _id: string } & Record<string, unknown>>('oauth_tokens');
  const once = async () => {
    if (work === 'user') {
      await users.findOne({ _id: id });
      return;
    }
    await clients.findOne({ _id: id });
    const now = new Date();
    await tokens.insertOne({
      _id: randomBytes(32).toString('base64url'),
      accessTokenExpiresAt: new Date(now.getTime() + 3600_000),
      scope: [],
      clientId: id,
      familyId: randomBytes(16).toString('base64url'),
      issuedAt: now,
    });
  };
  // Warm-up, as the load generator has one.
  const warmUntil = Date.now() + 1000;
  while (Date.now() < warmUntil) await once();
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) {
        await once();
        done += 1;
      }
    }),
  );
  await client.close();
  process.stdout.write(JSON.stringify({ operationsPerSecond: done / seconds }));
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
