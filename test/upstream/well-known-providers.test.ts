// Google's and Microsoft's discovery documents (saved copies in data/) configure sign-in with no code
// of their own: the presets name the issuers, and a provider on loopback answers at each URL the
// documents give (their host names routed to it), signing RS256 ID tokens as they do. Microsoft's
// `common` tenant publishes the issuer `https://login.microsoftonline.com/{tenantid}/v2.0`: a token
// is accepted when its `iss` is that with its own `tid`, and refused otherwise.
import request from 'supertest';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { startFakeOpenIdProvider, type FakeOpenIdProvider } from '../helpers/fake-openid-provider';
import google from './data/google-openid-configuration.json';
import microsoft from './data/microsoft-common-openid-configuration.json';

useTestDatabase();

const CLIENT_ID = 'registered-at-the-provider';
const CLIENT_SECRET = 'the-secret-it-gave';

async function signIn(provider: FakeOpenIdProvider, id: string, settings: Record<string, unknown>) {
  const app = testApp(
    { UPSTREAM_PROVIDERS: JSON.stringify([{ id, name: id, client_id: CLIENT_ID, client_secret: CLIENT_SECRET, ...settings }]) },
    { upstreamFetch: provider.routedFetch },
  );
  const agent = request.agent(app);
  const start = await agent.get(`/auth/upstream/${id}`).expect(302);
  const callback = new URL(await provider.authorize(start.headers.location));
  return { start: new URL(start.headers.location), res: await agent.get(callback.pathname + callback.search) };
}

describe('Google', () => {
  let provider: FakeOpenIdProvider;
  beforeAll(async () => {
    provider = await startFakeOpenIdProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, document: google });
  });
  afterAll(() => provider.close());

  it('signs in with the preset alone, at the endpoints of Google`s document', async () => {
    provider.account = { sub: '110169484474386276334', email: 'ada.g@gmail.com', email_verified: true, name: 'Ada Lovelace' };
    const { start, res } = await signIn(provider, 'google', { preset: 'google' });
    expect(start.origin + start.pathname).toBe('https://accounts.google.com/o/oauth2/v2/auth');
    expect(start.searchParams.get('scope')).toBe('openid email profile');
    expect(res.status).toBe(302);
    expect(await UserModel.findOne({ email: 'ada.g@gmail.com' }).lean()).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
    const paths = provider.upstream.requests.map((r) => r.url.pathname);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/accounts.google.com/.well-known/openid-configuration',
        '/oauth2.googleapis.com/token',
        '/www.googleapis.com/oauth2/v3/certs',
      ]),
    );
  });
});

describe('Microsoft (the common tenant)', () => {
  let provider: FakeOpenIdProvider;
  const TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';
  beforeAll(async () => {
    provider = await startFakeOpenIdProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      document: microsoft,
      discoveryUrl: 'https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration',
    });
  });
  afterAll(() => provider.close());

  it('accepts an ID token whose iss is the template with its own tid, for an address in a listed domain', async () => {
    provider.account = {
      sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ',
      tid: TENANT,
      email: 'grace@contoso.example',
      name: 'Grace Hopper',
    };
    provider.tamper = { issuer: `https://login.microsoftonline.com/${TENANT}/v2.0` };
    const { start, res } = await signIn(provider, 'microsoft', { preset: 'microsoft', trusted_email_domains: ['contoso.example'] });
    expect(start.origin + start.pathname).toBe('https://login.microsoftonline.com/common/oauth2/v2.0/authorize');
    expect(res.status).toBe(302);
    expect(await UserModel.findOne({ email: 'grace@contoso.example' }).lean()).toMatchObject({ emailVerified: true });
  });

  it('refuses an ID token whose iss names another tenant than its tid', async () => {
    provider.account = { sub: 'BBBBBBBBBBBBBBBBBBBBBBkzqFVrSaSaFHy782bbtaQ', tid: TENANT, email: 'alan@contoso.example' };
    provider.tamper = { issuer: 'https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000/v2.0' };
    const { res } = await signIn(provider, 'microsoft', { preset: 'microsoft', trusted_email_domains: ['contoso.example'] });
    expect(res.status).toBe(502);
    expect(await UserModel.countDocuments({ email: 'alan@contoso.example' })).toBe(0);
  });

  it('makes no account from the unverified email claim when no domain is listed (the preset`s default)', async () => {
    provider.account = { sub: 'CCCCCCCCCCCCCCCCCCCCCCkzqFVrSaSaFHy782bbtaQ', tid: TENANT, email: 'eve@contoso.example' };
    provider.tamper = { issuer: `https://login.microsoftonline.com/${TENANT}/v2.0` };
    const { res } = await signIn(provider, 'microsoft', { preset: 'microsoft' });
    expect(res.status).toBe(403);
    expect(await UserModel.countDocuments({ email: 'eve@contoso.example' })).toBe(0);
  });
});
