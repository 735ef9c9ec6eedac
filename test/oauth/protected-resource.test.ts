// This server's own APIs explain themselves as an OAuth protected resource (RFC 9728; issue 53, item
// 3): their metadata at /.well-known/oauth-protected-resource (and the path-suffixed form for an
// issuer with a path), named by `resource_metadata` in every API's challenge, with the scope a refused
// request needed (RFC 6750 §3). Seed 001's /api/user and the catalogue keep their seed's challenges word
// for word (resource.test.ts, catalogue.routes.test.ts).
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { dpopProof, newDpopKey } from '../helpers/dpop';
import { clientSecretPost, passwordGrant, registerClient } from '../helpers/oauth';
import { createUser } from '../helpers/factories';

useTestDatabase();
const app = testApp();
let issuer: string;
let metadataUrl: string;

beforeAll(async () => {
  issuer = (await request(app).get('/.well-known/openid-configuration').expect(200)).body.issuer;
  metadataUrl = `${new URL(issuer).origin}/.well-known/oauth-protected-resource`;
});

/** The challenge's parameters, by name (RFC 7235 §2.1), and its scheme. */
function challenge(header: string | undefined): { scheme: string; params: Record<string, string> } {
  const [scheme, ...rest] = (header ?? '').split(' ');
  const params = Object.fromEntries([...rest.join(' ').matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]));
  return { scheme, params };
}

describe('the metadata', () => {
  it('names this server as the authorization server of its own APIs, their scopes and how a token is sent', async () => {
    const res = await request(app).get('/.well-known/oauth-protected-resource').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toMatchObject({
      resource: issuer,
      authorization_servers: [issuer],
      bearer_methods_supported: ['header', 'body'],
      dpop_bound_access_tokens_required: false,
    });
    expect(res.body.scopes_supported).toEqual(expect.arrayContaining(['openid', 'read']));
    expect(res.body.dpop_signing_alg_values_supported).toContain('ES256');
    // The authorization server's own metadata is where a client goes next (RFC 9728 §2).
    const as = await request(app).get('/.well-known/oauth-authorization-server').expect(200);
    expect(as.body.issuer).toBe(res.body.authorization_servers[0]);
  });

  it('is served at the path-suffixed address too when the issuer has a path (RFC 9728 §3.1)', async () => {
    const prefixed = testApp({ PUBLIC_URL: 'http://127.0.0.1:3999/identity' });
    const res = await request(prefixed).get('/.well-known/oauth-protected-resource/identity').expect(200);
    expect(res.body.resource).toBe('http://127.0.0.1:3999/identity');
    await request(prefixed).get('/.well-known/oauth-protected-resource/another').expect(404);
    await request(app).get('/.well-known/oauth-protected-resource/identity').expect(404);
    const challenged = await request(prefixed).get('/oauth/userinfo').expect(401);
    expect(challenge(challenged.headers['www-authenticate']).params.resource_metadata).toBe(
      'http://127.0.0.1:3999/.well-known/oauth-protected-resource/identity',
    );
  });
});

describe('the challenges', () => {
  it('name the metadata when no token, or a bad one, comes to userinfo and the admin API', async () => {
    for (const path of ['/oauth/userinfo', '/admin/api/people']) {
      const none = challenge((await request(app).get(path).expect(401)).headers['www-authenticate']);
      expect(none).toEqual({ scheme: 'Bearer', params: { resource_metadata: metadataUrl } });
      const bad = await request(app).get(path).set('Authorization', 'Bearer not-a-token').expect(401);
      expect(challenge(bad.headers['www-authenticate'])).toMatchObject({
        scheme: 'Bearer',
        params: { error: 'invalid_token', resource_metadata: metadataUrl },
      });
    }
    // The address named is the metadata's own.
    const named = new URL(metadataUrl);
    expect((await request(app).get(named.pathname).expect(200)).body.resource).toBe(issuer);
  });

  it('say which scope a refused token lacked (RFC 6750 §3), for Bearer and DPoP', async () => {
    const { tokens } = await passwordGrant(app, { scope: 'read' });
    const userinfo = await request(app).get('/oauth/userinfo').set('Authorization', `Bearer ${tokens.access_token}`).expect(403);
    expect(challenge(userinfo.headers['www-authenticate']).params).toMatchObject({
      error: 'insufficient_scope',
      scope: 'openid',
      resource_metadata: metadataUrl,
    });
    const admin = await request(app).get('/admin/api/people').set('Authorization', `Bearer ${tokens.access_token}`).expect(403);
    expect(challenge(admin.headers['www-authenticate']).params).toMatchObject({ error: 'insufficient_scope', scope: 'admin' });

    const key = await newDpopKey();
    const client = await registerClient({ grants: ['password'] });
    const user = await createUser();
    const bound = await request(app)
      .post('/oauth/token')
      .type('form')
      .set('DPoP', await dpopProof(key, 'POST', `${issuer}/oauth/token`))
      .send({ grant_type: 'password', ...clientSecretPost(client), username: user.email, password: user.password, scope: 'read' })
      .expect(200);
    const token = bound.body.access_token as string;
    const refused = await request(app)
      .get('/oauth/userinfo')
      .set('Authorization', `DPoP ${token}`)
      .set('DPoP', await dpopProof(key, 'GET', `${issuer}/oauth/userinfo`, token))
      .expect(403);
    expect(challenge(refused.headers['www-authenticate'])).toMatchObject({
      scheme: 'DPoP',
      params: { error: 'insufficient_scope', scope: 'openid', resource_metadata: metadataUrl },
    });
  });

  it("leave seed 001's /api/user as the seed words it", async () => {
    expect((await request(app).get('/api/user').expect(401)).headers['www-authenticate']).toBe('Bearer realm="api"');
  });
});
