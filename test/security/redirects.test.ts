// The server never becomes an open redirector: a client anyone registered gets no error redirect for
// an anonymous visitor (RFC 9700 §4.11.2), sign-out follows post_logout_redirect_uri only with an
// id_token_hint (RP-Initiated Logout §2), and what a client asked for (prompt=consent) survives the
// round trip through the sign-in page.
import request from 'supertest';
import * as clientsService from '../../src/oauth/clients/clients.service';
import * as registrationService from '../../src/oauth/clients/registration.service';
import { createStores } from '../../src/stores';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, csrfFrom, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();
const query = (clientId: string, extra: Record<string, string>) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: REDIRECT_URI,
  scope: 'read',
  state: 's',
  ...extra,
});

describe('GET /oauth/authorize with an invalid request', () => {
  it.each<Record<string, string>>([{ scope: 'bogus' }, { response_type: 'bogus' }])(
    'shows an anonymous visitor a page, not the redirect, for a self-registered client (%o)',
    async (extra) => {
      const client = await registerClient();
      const res = await request(app).get('/oauth/authorize').query(query(client.client_id, extra)).expect(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain('Invalid authorization request');
    },
  );

  it('redirects the error for someone signed in, and for a client the operator registered', async () => {
    const owned = await registerClient();
    const { agent } = await signedInAgent(app);
    const signedIn = await agent
      .get('/oauth/authorize')
      .query(query(owned.client_id, { scope: 'bogus' }))
      .expect(302);
    expect(new URL(signedIn.headers.location).searchParams.get('error')).toBe('invalid_scope');
    const operators = await clientsService.register(undefined, {
      name: 'Operator App',
      website: 'https://client.example.com',
      redirect_uri: REDIRECT_URI,
    });
    const anonymous = await request(app)
      .get('/oauth/authorize')
      .query(query(operators.client_id, { scope: 'bogus' }))
      .expect(302);
    expect(new URL(anonymous.headers.location).searchParams.get('error')).toBe('invalid_scope');
  });
});

describe('GET /oauth/end-session', () => {
  it('does not follow post_logout_redirect_uri on client_id alone: the signed-out page instead', async () => {
    const owner = await createUser();
    const client = await registrationService.register(
      owner.id,
      { redirect_uris: [REDIRECT_URI], post_logout_redirect_uris: ['https://client.example.com/bye'] },
      { issuer: 'http://127.0.0.1', allowPrivate: true, sealingSecret: 'unused-in-this-test', keySets: createStores().clientKeySets },
    );
    const res = await request(app)
      .get('/oauth/end-session')
      .query({ client_id: client.client_id, post_logout_redirect_uri: 'https://client.example.com/bye' })
      .expect(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('Signed out');
  });
});

describe('prompt=consent across sign-in', () => {
  it('shows the consent page after signing in, though the person approved the client before', async () => {
    const client = await registerClient();
    const { agent, user } = await signedInAgent(app);
    await approve(agent, query(client.client_id, {}));
    const signedOut = request.agent(app);
    const toLogin = await signedOut
      .get('/oauth/authorize')
      .query(query(client.client_id, { prompt: 'consent' }))
      .expect(302);
    const returnTo = new URL(toLogin.headers.location, 'http://x').searchParams.get('return_to')!;
    expect(new URLSearchParams(returnTo.split('?')[1]).get('prompt')).toBe('consent');
    const page = await signedOut.get(toLogin.headers.location).expect(200);
    const back = await signedOut
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), email: user.email, password: user.password, return_to: returnTo })
      .expect(303);
    const consent = await signedOut.get(back.headers.location).expect(200);
    expect(consent.text).toContain('Approve');
  });
});

describe('addresses the server calls, registered in production', () => {
  const production = {
    issuer: 'https://id.example.com',
    allowPrivate: false,
    sealingSecret: 'unused-in-this-test',
    keySets: createStores().clientKeySets,
  };

  it.each([
    ['jwks_uri', 'http://keys.example.com/jwks', 'jwks_uri must be an https URL of a public host'],
    ['jwks_uri', 'https://127.0.0.1/jwks', 'jwks_uri must be an https URL of a public host'],
    ['jwks_uri', 'https://[::1]/jwks', 'jwks_uri must be an https URL of a public host'],
    ['jwks_uri', 'https://169.254.169.254/latest', 'jwks_uri must be an https URL of a public host'],
    [
      'backchannel_logout_uri',
      'https://10.0.0.8/logout',
      'backchannel_logout_uri must be an https URL of a public host, without a fragment',
    ],
    [
      'backchannel_logout_uri',
      'http://rp.example.com/logout',
      'backchannel_logout_uri must be an https URL of a public host, without a fragment',
    ],
  ])('refuses %s %s, registering nothing', async (field, value, description) => {
    const owner = await createUser();
    await expect(
      registrationService.register(owner.id, { redirect_uris: [REDIRECT_URI], [field]: value }, production),
    ).rejects.toMatchObject({ kind: 'invalid', protocolError: 'invalid_client_metadata', message: description });
    expect(await clientsService.listAll(owner.id)).toEqual([]);
  });

  it('takes an https name, which is checked again on the address it resolves to when called', async () => {
    const owner = await createUser();
    const registered = await registrationService.register(
      owner.id,
      { redirect_uris: [REDIRECT_URI], jwks_uri: 'https://keys.example.com/jwks', backchannel_logout_uri: 'https://rp.example.com/logout' },
      production,
    );
    expect(registered).toMatchObject({
      jwks_uri: 'https://keys.example.com/jwks',
      backchannel_logout_uri: 'https://rp.example.com/logout',
    });
  });
});
