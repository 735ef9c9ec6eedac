// Keycloak as a peer measured from outside (BENCH_KEYCLOAK=<its home>, unpacked by
// bench/keycloak-fetch.sh from Maven Central): started in development mode (H2), given a realm with
// hour-long tokens, a confidential client allowed client_credentials and the password grant, and a
// user; then the same scenarios as the other peers, at Keycloak's paths.

export const KEYCLOAK_ADMIN = { username: 'bench-admin', password: 'bench-admin-password' };
const REALM = 'bench';
const CLIENT = { clientId: 'bench-peer', secret: 'bench-peer-secret' };
const USER = { username: 'bench-user', password: 'bench-user-password' };

/** kc.sh's arguments and environment for a development server on 127.0.0.1:<port>. */
export function keycloakCommand(home: string, port: number) {
  return {
    file: `${home}/bin/kc.sh`,
    args: ['start-dev', `--http-port=${port}`, '--http-host=127.0.0.1', '--log-level=warn'],
    env: { KC_BOOTSTRAP_ADMIN_USERNAME: KEYCLOAK_ADMIN.username, KC_BOOTSTRAP_ADMIN_PASSWORD: KEYCLOAK_ADMIN.password },
  };
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

async function tokenOf(base: string, realm: string, fields: Record<string, string>): Promise<string> {
  const res = await fetch(`${base}/realms/${realm}/protocol/openid-connect/token`, form(fields));
  if (!res.ok) throw new Error(`Keycloak token request: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The admin token once Keycloak answers (it opens its port before the master realm is ready). */
async function adminToken(base: string): Promise<string> {
  const fields = { grant_type: 'password', client_id: 'admin-cli', ...KEYCLOAK_ADMIN };
  for (let attempt = 0; attempt < 120; attempt++) {
    try {
      return await tokenOf(base, 'master', fields);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  throw new Error('Keycloak did not give an admin token within two minutes');
}

/** Creates the realm, client and user; answers the fixture the scenarios use. */
export async function keycloakFixture(port: number): Promise<Record<string, string>> {
  const base = `http://127.0.0.1:${port}`;
  const admin = await adminToken(base);
  const adminCall = async (path: string, body: unknown) => {
    const res = await fetch(`${base}/admin/realms${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok && res.status !== 409) throw new Error(`Keycloak admin ${path}: ${res.status} ${await res.text()}`);
  };
  await adminCall('', { realm: REALM, enabled: true, accessTokenLifespan: 3600, ssoSessionIdleTimeout: 36_000 });
  await adminCall(`/${REALM}/clients`, {
    ...CLIENT,
    enabled: true,
    publicClient: false,
    clientAuthenticatorType: 'client-secret',
    serviceAccountsEnabled: true,
    directAccessGrantsEnabled: true,
    standardFlowEnabled: false,
  });
  await adminCall(`/${REALM}/users`, {
    username: USER.username,
    email: 'bench-user@example.com',
    firstName: 'Bench',
    lastName: 'User',
    emailVerified: true,
    enabled: true,
    credentials: [{ type: 'password', value: USER.password, temporary: false }],
  });
  const accessToken = await tokenOf(base, REALM, {
    grant_type: 'password',
    client_id: CLIENT.clientId,
    client_secret: CLIENT.secret,
    username: USER.username,
    password: USER.password,
    scope: 'openid',
  });
  return { client_id: CLIENT.clientId, client_secret: CLIENT.secret, accessToken, realm: `/realms/${REALM}` };
}
