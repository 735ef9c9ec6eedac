// ORY Hydra as a peer measured from outside (BENCH_HYDRA=<its binary>, built by bench/hydra-fetch.sh
// from the Go module proxy): SQLite in WAL mode with full sync, its schema migrated first, a client
// allowed client_credentials, then the scenarios the other peers run, at Hydra's paths. Hydra has no
// user store of its own (a login app answers for it), so it has no userinfo scenario; introspection
// is on its admin port, as Hydra serves it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const CLIENT = { client_id: 'bench-peer', client_secret: 'bench-peer-secret-of-some-length' };

/** Hydra's environment for a development server on 127.0.0.1: public port, admin port, SQLite file. */
export function hydraEnv(port: number, adminPort: number, databaseFile: string): Record<string, string> {
  return {
    DSN: `sqlite://${databaseFile}?_fk=true&_journal_mode=WAL&_synchronous=FULL`,
    SECRETS_SYSTEM: 'bench-hydra-system-secret-at-least-32-characters',
    URLS_SELF_ISSUER: `http://127.0.0.1:${port}`,
    SERVE_PUBLIC_HOST: '127.0.0.1',
    SERVE_PUBLIC_PORT: String(port),
    SERVE_ADMIN_HOST: '127.0.0.1',
    SERVE_ADMIN_PORT: String(adminPort),
    TTL_ACCESS_TOKEN: '1h',
    LOG_LEVEL: 'warn',
    SQA_OPT_OUT: 'true',
  };
}

/** Creates Hydra's tables in the SQLite file (`hydra migrate sql up`). */
export async function migrateHydra(binary: string, env: Record<string, string>): Promise<void> {
  await promisify(execFile)(binary, ['migrate', 'sql', 'up', '-e', '--yes'], { env: { ...process.env, ...env } });
}

/** Registers the client through the admin API; answers the fixture the scenarios use. */
export async function hydraFixture(port: number, adminPort: number): Promise<Record<string, string>> {
  const res = await fetch(`http://127.0.0.1:${adminPort}/admin/clients`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...CLIENT, grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' }),
  });
  if (!res.ok && res.status !== 409) throw new Error(`Hydra admin: ${res.status} ${await res.text()}`);
  const token = await fetch(`http://127.0.0.1:${port}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...CLIENT, grant_type: 'client_credentials' }).toString(),
  });
  if (!token.ok) throw new Error(`Hydra token request: ${token.status} ${await token.text()}`);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  // Hydra makes its signing keys on first use, and concurrent first requests each make one: once here,
  // before anything is measured.
  const keys = await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`);
  if (!keys.ok) throw new Error(`Hydra JWK Set: ${keys.status}`);
  return { ...CLIENT, accessToken, adminPort: String(adminPort) };
}
