import request from 'supertest';
import type { GrantType } from '../../src/oauth/protocol';
import { CodeModel, TokenModel } from '../../src/oauth/tokens/tokens.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { approve, csrfFrom, pkcePair, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

const codeQuery = (clientId: string, extra: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: REDIRECT_URI,
  ...extra,
});

describe('GET /oauth/authorize before any redirect is trusted', () => {
  it('answers a 400 page, not a redirect, for an unknown client', async () => {
    const { agent } = await signedInAgent(app);
    const res = await agent.get('/oauth/authorize').query(codeQuery('no-such-client')).expect(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('Unknown application');
  });

  it('answers a 400 page for a missing client_id', async () => {
    const res = await request(app).get('/oauth/authorize').query({ response_type: 'code' }).expect(400);
    expect(res.text).toContain('Unknown application');
  });

  it.each([
    'https://client.example.com/callback/',
    'https://client.example.com/callback?x=1',
    'https://evil.example.com/callback',
    'http://client.example.com/callback',
  ])('answers a 400 page and never redirects to the unregistered redirect_uri %s', async (redirectUri) => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const res = await agent
      .get('/oauth/authorize')
      .query({ ...codeQuery(client.client_id), redirect_uri: redirectUri })
      .expect(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('Invalid redirect address');
  });

  it('answers a 400 page for a repeated parameter', async () => {
    const client = await registerClient();
    const res = await request(app)
      .get(`/oauth/authorize?client_id=${client.client_id}&client_id=${client.client_id}&response_type=code`)
      .expect(400);
    expect(res.text).toContain('Parameter client_id is repeated');
  });
});

describe('GET /oauth/authorize for a valid client', () => {
  it('redirects to /login with return_to when not signed in', async () => {
    const client = await registerClient();
    const res = await request(app)
      .get('/oauth/authorize')
      .query(codeQuery(client.client_id, { state: 'xyz' }))
      .expect(302);
    const location = new URL(res.headers.location, 'http://localhost');
    expect(location.pathname).toBe('/login');
    const returnTo = location.searchParams.get('return_to')!;
    expect(returnTo.startsWith('/oauth/authorize?')).toBe(true);
    expect(new URLSearchParams(returnTo.split('?')[1]).get('state')).toBe('xyz');
  });

  it('shows a consent page naming the client, its website and the scopes, with Approve and Deny', async () => {
    const client = await registerClient({ name: 'Photo <Printer>', website: 'https://photos.example.com' });
    const { agent } = await signedInAgent(app);
    const res = await agent
      .get('/oauth/authorize')
      .query(codeQuery(client.client_id, { scope: 'read write' }))
      .expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('Photo &lt;Printer&gt;');
    expect(res.text).not.toContain('<Printer>');
    expect(res.text).toContain('https://photos.example.com');
    expect(res.text).toMatch(/<strong>read<\/strong>/);
    expect(res.text).toMatch(/<strong>write<\/strong>/);
    expect(res.text).toMatch(/<button type="submit" name="decision" value="approve">Approve<\/button>/);
    expect(res.text).toMatch(/<button type="submit" name="decision" value="deny" class="secondary">Deny<\/button>/);
    expect(csrfFrom(res.text)).toBeTruthy();
  });

  it.each(['/v1/oauth/authorize', '/authorize', '/oauth/authorize'])('serves the same flow on %s', async (path) => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const location = await approve(agent, codeQuery(client.client_id, { state: 's1' }), 'approve', path);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    expect(location.searchParams.get('code')).toMatch(/^\S{20,}$/);
    expect(location.searchParams.get('state')).toBe('s1');
  });

  it('uses the registered redirect_uri when none is sent', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const location = await approve(agent, { response_type: 'code', client_id: client.client_id });
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    expect(location.searchParams.get('code')).toBeTruthy();
  });

  it('stores the code only as a hash, for 10 minutes', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const location = await approve(agent, codeQuery(client.client_id));
    const code = location.searchParams.get('code')!;
    const stored = await CodeModel.findOne({ clientId: client.client_id }).lean();
    expect(stored!._id).not.toBe(code);
    expect(JSON.stringify(stored)).not.toContain(code);
    const lifetime = (stored!.expiresAt.getTime() - Date.now()) / 1000;
    expect(lifetime).toBeGreaterThan(590);
    expect(lifetime).toBeLessThanOrEqual(600);
  });

  it('redirects with error=access_denied and the state when the user denies', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const location = await approve(agent, codeQuery(client.client_id, { state: 'keep-me' }), 'deny');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('keep-me');
    expect(location.searchParams.get('code')).toBeNull();
    expect(await CodeModel.countDocuments({ clientId: client.client_id })).toBe(0);
  });

  it('refuses a decision without the CSRF token', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    await agent.get('/oauth/authorize').query(codeQuery(client.client_id));
    await agent
      .post('/oauth/authorize')
      .type('form')
      .send({ ...codeQuery(client.client_id), decision: 'approve' })
      .expect(403);
    expect(await CodeModel.countDocuments({ clientId: client.client_id })).toBe(0);
  });

  it('keeps a PKCE challenge with the code', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const pkce = pkcePair('S256');
    await approve(agent, codeQuery(client.client_id, { code_challenge: pkce.challenge, code_challenge_method: 'S256' }));
    const stored = await CodeModel.findOne({ clientId: client.client_id }).lean();
    expect(stored).toMatchObject({ codeChallenge: pkce.challenge, codeChallengeMethod: 'S256' });
  });
});

describe('errors sent back to the redirect_uri', () => {
  async function errorFor(query: Record<string, string>, grants?: GrantType[]) {
    const client = await registerClient(grants ? { grants } : {});
    const { agent } = await signedInAgent(app);
    const res = await agent
      .get('/oauth/authorize')
      .query({ client_id: client.client_id, redirect_uri: REDIRECT_URI, state: 'st', ...query })
      .expect(302);
    const location = new URL(res.headers.location);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    return location;
  }

  it.each([
    ['a missing response_type', {}, 'invalid_request'],
    ['an unknown response_type', { response_type: 'code_and_more' }, 'unsupported_response_type'],
    ['an unknown scope', { response_type: 'code', scope: 'read admin' }, 'invalid_scope'],
    ['a malformed PKCE challenge', { response_type: 'code', code_challenge: 'short' }, 'invalid_request'],
    ['an unknown PKCE method', { response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'S512' }, 'invalid_request'],
  ])('redirects with the error for %s, keeping state', async (_case, query, error) => {
    const location = await errorFor(query);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('error_description')).toBeTruthy();
    expect(location.searchParams.get('state')).toBe('st');
  });

  it('answers unauthorized_client when the client may not use the code flow', async () => {
    const location = await errorFor({ response_type: 'code' }, ['client_credentials']);
    expect(location.searchParams.get('error')).toBe('unauthorized_client');
  });

  it('answers unauthorized_client in the fragment when the client may not use the implicit flow', async () => {
    const location = await errorFor({ response_type: 'token' }, ['authorization_code']);
    expect(new URLSearchParams(location.hash.slice(1)).get('error')).toBe('unauthorized_client');
  });
});

describe('implicit grant (response_type=token)', () => {
  it('redirects with the token in the fragment: token=, access_token=, token_type, expires_in, scope and state', async () => {
    const client = await registerClient();
    const { agent, user } = await signedInAgent(app);
    const location = await approve(agent, {
      response_type: 'token',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      state: 'imp',
      scope: 'read',
    });
    expect(location.search).toBe('');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('token')).toMatch(/^\S{20,}$/);
    expect(fragment.get('access_token')).toBe(fragment.get('token'));
    expect(fragment.get('token_type')).toBe('bearer');
    expect(fragment.get('expires_in')).toBe('2592000');
    expect(fragment.get('scope')).toBe('read');
    expect(fragment.get('state')).toBe('imp');
    expect(fragment.get('refresh_token')).toBeNull();

    const stored = await TokenModel.findOne({ clientId: client.client_id }).lean();
    expect(stored!.refreshTokenHash).toBeUndefined();
    const me = await request(app)
      .get('/api/user')
      .set('Authorization', `Bearer ${fragment.get('token')}`)
      .expect(200);
    expect(me.body.email).toBe(user.email);
  });

  it('sends access_denied in the fragment when the user denies', async () => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const location = await approve(agent, { response_type: 'token', client_id: client.client_id, state: 'd' }, 'deny');
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('error')).toBe('access_denied');
    expect(fragment.get('state')).toBe('d');
  });
});
