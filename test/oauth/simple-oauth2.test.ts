// simple-oauth2, a client library nobody here wrote, against the live app: the client credentials,
// password and authorization code grants, refresh and revocation, with credentials in the Basic header
// (form-encoded, as RFC 6749 §2.3.1 says) and in the body.
import { AuthorizationCode, ClientCredentials, ResourceOwnerPassword, type ModuleOptions } from 'simple-oauth2';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';
import { useLiveApp } from '../helpers/oidc';

useTestDatabase();
const liveApp = useLiveApp();

async function configFor(authorizationMethod: 'header' | 'body'): Promise<ModuleOptions> {
  const client = await registerClient({ grants: ['client_credentials', 'password', 'refresh_token', 'authorization_code'] });
  return {
    client: { id: client.client_id, secret: client.client_secret },
    auth: { tokenHost: liveApp().issuer, tokenPath: '/oauth/token', revokePath: '/oauth/revoke' },
    options: { authorizationMethod },
  };
}

const apiUser = (accessToken: unknown) =>
  fetch(`${liveApp().issuer}/api/user`, { headers: { Authorization: `Bearer ${String(accessToken)}` } });

describe.each(['header', 'body'] as const)('simple-oauth2 with credentials in the %s', (authorizationMethod) => {
  it('gets a client credentials token, with no refresh token', async () => {
    const token = await new ClientCredentials(await configFor(authorizationMethod)).getToken({ scope: 'read' });
    expect(token.token).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    expect(token.token.refresh_token).toBeUndefined();
    expect(token.expired()).toBe(false);
  });

  it('gets a password token, refreshes it, revokes the pair, and is refused the rotated refresh token', async () => {
    const user = await createUser();
    const grant = new ResourceOwnerPassword(await configFor(authorizationMethod));
    const token = await grant.getToken({ username: user.email, password: user.password, scope: 'read' });
    expect((await apiUser(token.token.access_token)).status).toBe(200);
    const refreshed = await token.refresh();
    expect(refreshed.token.access_token).not.toBe(token.token.access_token);
    await refreshed.revokeAll();
    expect((await apiUser(refreshed.token.access_token)).status).toBe(401);
    await expect(token.refresh()).rejects.toMatchObject({ output: { statusCode: 400 } });
  });

  it('exchanges an authorization code from the consent page', async () => {
    const config = await configFor(authorizationMethod);
    const grant = new AuthorizationCode({ ...config, auth: { ...config.auth, authorizePath: '/oauth/authorize' } });
    const url = new URL(grant.authorizeURL({ redirect_uri: REDIRECT_URI, scope: 'read', state: 'simple' }));
    const { agent } = await signedInAgent(liveApp().app);
    const callback = await approve(agent, Object.fromEntries(url.searchParams));
    expect(callback.searchParams.get('state')).toBe('simple');
    const token = await grant.getToken({ code: callback.searchParams.get('code')!, redirect_uri: REDIRECT_URI });
    expect((await apiUser(token.token.access_token)).status).toBe(200);
  });
});
