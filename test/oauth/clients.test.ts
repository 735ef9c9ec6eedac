import request from 'supertest';
import { sha256 } from '../../src/common/crypto';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import { CodeModel } from '../../src/oauth/tokens/tokens.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import * as clientsService from '../../src/oauth/clients/clients.service';
import { clientSecretPost, codeExchange, authorizationCode, csrfFrom, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

const registration = { name: 'My App', website: 'https://app.example.com', redirect_uri: REDIRECT_URI };

async function jwtFor(user?: Awaited<ReturnType<typeof createUser>>) {
  const account = user ?? (await createUser());
  const res = await request(app).post('/auth').send({ email: account.email, password: account.password }).expect(201);
  return { user: account, authorization: `Bearer ${res.body.accessToken}` };
}

describe('POST /oauth/clients', () => {
  it('registers a client for a JWT user: 201 with the secret once, stored only as a hash', async () => {
    const { user, authorization } = await jwtFor();
    const res = await request(app).post('/oauth/clients').set('Authorization', authorization).send(registration).expect(201);
    expect(res.body).toEqual({
      client_id: expect.any(String),
      client_secret: expect.any(String),
      ...registration,
      grants: ['authorization_code', 'implicit', 'refresh_token'],
    });
    const stored = await ClientModel.findById(res.body.client_id).lean();
    expect(stored).toMatchObject({ ownerId: user.id, secretHash: sha256(res.body.client_secret) });
    expect(JSON.stringify(stored)).not.toContain(res.body.client_secret);
  });

  it('registers a client for a signed-in browser session', async () => {
    const { agent } = await signedInAgent(app);
    const res = await agent
      .post('/oauth/clients')
      .send({ ...registration, grants: ['client_credentials'] })
      .expect(201);
    expect(res.body.grants).toEqual(['client_credentials']);
  });

  it('answers 401 with an empty body without a JWT or a session', async () => {
    const res = await request(app).post('/oauth/clients').send(registration).expect(401);
    expect(res.text).toBe('');
  });

  it('answers 403 with an empty body for a bad JWT', async () => {
    await request(app).post('/oauth/clients').set('Authorization', 'Bearer not.a.jwt').send(registration).expect(403);
  });

  it.each([
    ['name', { name: '' }],
    ['name', { name: 7 }],
    ['website', { website: 'not a url' }],
    ['redirect_uri', { redirect_uri: 'https://app.example.com/cb#fragment' }],
    ['redirect_uri', { redirect_uri: 'javascript:alert(1)' }],
    ['redirect_uri', { redirect_uri: '/relative' }],
    ['grants', { grants: ['magic'] }],
    ['grants', { grants: [] }],
    ['grants', { grants: 'password' }],
  ])('answers 400 naming %s for a bad value, storing nothing', async (path, change) => {
    const { authorization } = await jwtFor();
    const before = await ClientModel.countDocuments();
    const res = await request(app)
      .post('/oauth/clients')
      .set('Authorization', authorization)
      .send({ ...registration, ...change })
      .expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path })]);
    expect(await ClientModel.countDocuments()).toBe(before);
  });
});

describe('GET /oauth/clients', () => {
  it("lists the caller's clients without secrets", async () => {
    const { authorization } = await jwtFor();
    const created = await request(app).post('/oauth/clients').set('Authorization', authorization).send(registration).expect(201);
    await request(app)
      .post('/oauth/clients')
      .set('Authorization', (await jwtFor()).authorization)
      .send(registration)
      .expect(201);
    const res = await request(app).get('/oauth/clients').set('Authorization', authorization).expect(200);
    expect(res.body).toEqual([{ client_id: created.body.client_id, ...registration, grants: created.body.grants }]);
    expect(JSON.stringify(res.body)).not.toContain(created.body.client_secret);
  });
});

describe('DELETE /oauth/clients/:clientId', () => {
  it('removes the client and revokes its tokens and codes', async () => {
    const { user, authorization } = await jwtFor();
    const client = (await request(app).post('/oauth/clients').set('Authorization', authorization).send(registration).expect(201)).body;
    const { code } = await authorizationCode(app, client);
    const token = await request(app).post('/oauth/token').type('form').send(codeExchange(client, code)).expect(200);
    await authorizationCode(app, client);

    await request(app).delete(`/oauth/clients/${client.client_id}`).set('Authorization', authorization).expect(204);
    await request(app).get('/api/user').set('Authorization', `Bearer ${token.body.access_token}`).expect(401);
    // Its tokens are dead (a token's client is read at every use) and lie until the expiry journal
    // sweeps them; its unused codes are deleted.
    const refreshed = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: token.body.refresh_token, ...clientSecretPost(client) });
    expect(refreshed.status).toBe(401);
    expect(await CodeModel.countDocuments({ clientId: client.client_id })).toBe(0);
    expect(await ClientModel.countDocuments({ ownerId: user.id })).toBe(0);
  });

  it("answers 404 for another user's client and leaves it", async () => {
    const owner = await jwtFor();
    const client = (await request(app).post('/oauth/clients').set('Authorization', owner.authorization).send(registration).expect(201))
      .body;
    const res = await request(app)
      .delete(`/oauth/clients/${client.client_id}`)
      .set('Authorization', (await jwtFor()).authorization)
      .expect(404);
    expect(res.body).toEqual({ error: `Client ${client.client_id} not found` });
    expect(await ClientModel.countDocuments({ _id: client.client_id })).toBe(1);
  });

  it('works from a browser session with the consent flow', async () => {
    const { agent } = await signedInAgent(app);
    const home = await agent.get('/home');
    expect(csrfFrom(home.text)).toBeTruthy();
    const client = (await agent.post('/oauth/clients').send(registration).expect(201)).body;
    await agent.delete(`/oauth/clients/${client.client_id}`).expect(204);
  });
});

describe('the clients this process keeps in memory', () => {
  it('refuse a rotated secret and a deleted client at once, though the client was just read', async () => {
    const client = await registerClient({ grants: ['client_credentials'] });
    const token = (secret: string) =>
      request(app)
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: secret });
    await token(client.client_secret).expect(200);
    const rotated = (await clientsService.rotateSecret(client.client_id))!;
    await token(client.client_secret).expect(401);
    await token(rotated).expect(200);
    await clientsService.removeClient(client.client_id, async () => undefined);
    await token(rotated).expect(401);
  });
});
