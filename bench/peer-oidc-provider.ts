// The peer the bench compares with: node-oidc-provider (a dev dependency used only here) configured for
// the same scenarios, in memory or on the bench's own database through the small adapter below.
// Usage: PORT=<port> PEER_STORE=<memory|database> MONGODB_URI=<uri> node -r ts-node/register/transpile-only bench/peer-oidc-provider.ts
// GET /bench/fixture answers the client and a user's access token the scenarios use.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import mongoose from 'mongoose';
import type { Adapter, AdapterPayload, default as ProviderType } from 'oidc-provider';
import { BENCH_RESOURCES } from './bench-resource';

// oidc-provider is an ES module; Node loads it with require() (Node >= 20.19).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Provider, errors } = require('oidc-provider') as { Provider: typeof ProviderType; errors: typeof import('oidc-provider').errors };

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const CLIENT = { client_id: 'bench-peer', client_secret: 'bench-peer-secret-that-is-long-enough-for-hs256' };
const USER = 'bench-user';

interface Stored {
  _id: string;
  payload: AdapterPayload;
  grantId?: string;
  uid?: string;
  userCode?: string;
  expiresAt?: Date;
}

/**
 * Plain storage on MongoDB or FerretDB: one collection per model, keyed by id, with an index on each
 * secondary key the provider looks up or deletes by, and on the expiry (what a production adapter
 * makes). Expired entries are ignored on read, as the provider expects.
 */
function databaseAdapter(db: mongoose.mongo.Db) {
  const indexed = new Set<string>();
  return class DatabaseAdapter implements Adapter {
    private readonly collection: mongoose.mongo.Collection<Stored>;

    constructor(name: string) {
      this.collection = db.collection<Stored>(`peer_${name}`);
      if (!indexed.has(name)) {
        indexed.add(name);
        const keys = ['grantId', 'uid', 'userCode', 'expiresAt'].map((field) => ({ key: { [field]: 1 } }));
        this.collection.createIndexes(keys).catch(fail);
      }
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const { grantId, uid, userCode } = payload;
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : undefined;
      await this.collection.updateOne({ _id: id }, { $set: { payload, grantId, uid, userCode, expiresAt } }, { upsert: true });
    }

    private async findBy(filter: mongoose.mongo.Filter<Stored>): Promise<AdapterPayload | undefined> {
      const found = await this.collection.findOne(filter);
      if (!found || (found.expiresAt && found.expiresAt <= new Date())) return undefined;
      return found.payload;
    }

    find(id: string) {
      return this.findBy({ _id: id });
    }

    findByUid(uid: string) {
      return this.findBy({ uid });
    }

    findByUserCode(userCode: string) {
      return this.findBy({ userCode });
    }

    async consume(id: string): Promise<void> {
      await this.collection.updateOne({ _id: id }, { $set: { 'payload.consumed': Math.floor(Date.now() / 1000) } });
    }

    async destroy(id: string): Promise<void> {
      await this.collection.deleteOne({ _id: id });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await this.collection.deleteMany({ grantId });
    }
  };
}

async function main(): Promise<void> {
  let adapter: ReturnType<typeof databaseAdapter> | undefined;
  if (process.env.PEER_STORE === 'database') {
    await mongoose.connect(process.env.MONGODB_URI!);
    adapter = databaseAdapter(mongoose.connection.db!);
  }
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const provider = new Provider(issuer, {
    adapter,
    clients: [
      {
        ...CLIENT,
        grant_types: ['client_credentials', 'authorization_code'],
        redirect_uris: ['https://bench.example.com/cb'],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'openid read',
      },
    ],
    jwks: {
      keys: [
        { ...privateKey.export({ format: 'jwk' }), kid: 'bench', use: 'sig', alg: 'RS256' },
        { ...ecKey.export({ format: 'jwk' }), kid: 'bench-ec', use: 'sig', alg: 'ES256' },
      ] as never,
    },
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      devInteractions: { enabled: false },
      // A token request naming one of BENCH_RESOURCES gets node-oidc-provider's JWT access token
      // (RFC 9068) signed with that algorithm; one naming none gets its opaque token, as before.
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          const alg = (Object.keys(BENCH_RESOURCES) as (keyof typeof BENCH_RESOURCES)[]).find((name) => BENCH_RESOURCES[name] === resource);
          if (!alg) throw new errors.InvalidTarget();
          return { scope: 'read', audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: 600, jwt: { sign: { alg } } };
        },
      },
    },
    scopes: ['openid', 'read'],
    ttl: { AccessToken: 3600, ClientCredentials: 3600, Grant: 86_400 },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, email: 'bench@example.com', email_verified: true }),
    }),
  });

  // A user's access token with openid, made as an authorization would make it.
  const client = (await provider.Client.find(CLIENT.client_id))!;
  const grant = new provider.Grant({ accountId: USER, clientId: CLIENT.client_id });
  grant.addOIDCScope('openid');
  const grantId = await grant.save();
  const accessToken = await new provider.AccessToken({
    accountId: USER,
    client,
    grantId,
    scope: 'openid',
    gty: 'authorization_code',
  }).save();
  const fixture = JSON.stringify({ ...CLIENT, accessToken });

  const handle = provider.callback();
  http
    .createServer((req, res) => {
      if (req.url === '/bench/fixture') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(fixture);
      void handle(req, res);
    })
    .listen(port, '127.0.0.1');
}

function fail(err: unknown): never {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
}

main().catch(fail);
