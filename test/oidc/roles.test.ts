// Roles (docs/oauth.md, Roles) through HTTP: an operator's client defines them and gives them to
// people with the admin API; an application that asked for the `roles` scope finds them in the ID
// token, userinfo and the JWT access token, and no longer after they are taken away. `admin` is a
// role like the others, given only by an operator, never read from permissionFlags. Every change is
// an event naming the operator's client.
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import request from 'supertest';
import { RoleModel } from '../../src/oauth/roles/roles.model';
import { ActivityModel } from '../../src/account/activity.model';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { authorizationCode, codeExchange, operatorToken, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp();
let admin: string;

beforeAll(async () => {
  admin = `Bearer ${await operatorToken(app)}`;
});
beforeEach(() => RoleModel.deleteMany({}));

const asAdmin = {
  get: (path: string) => request(app).get(path).set('Authorization', admin),
  post: (path: string, body: unknown) =>
    request(app)
      .post(path)
      .set('Authorization', admin)
      .send(body as object),
  put: (path: string) => request(app).put(path).set('Authorization', admin),
  delete: (path: string) => request(app).delete(path).set('Authorization', admin),
};

describe('the admin API for roles', () => {
  it('needs an access token with the admin scope', async () => {
    await request(app).get('/admin/api/roles').expect(401);
    const client = await registerClient({ grants: ['client_credentials'] });
    const plain = await request(app)
      .post('/oauth/token')
      .auth(client.client_id, client.client_secret)
      .type('form')
      .send({ grant_type: 'client_credentials' })
      .expect(200);
    const refused = await request(app).put(`/admin/api/people/x/roles/editor`).set('Authorization', `Bearer ${plain.body.access_token}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
  });

  it('defines roles, lists them admin first a page at a time, and deletes them', async () => {
    await asAdmin.post('/admin/api/roles', { name: 'editor', description: 'Edits the catalogue' }).expect(201, {
      name: 'editor',
      description: 'Edits the catalogue',
      built_in: false,
    });
    await asAdmin.post('/admin/api/roles', { name: 'viewer' }).expect(201);
    const first = await asAdmin.get('/admin/api/roles?limit=2').expect(200);
    expect(first.body.roles.map((role: { name: string }) => role.name)).toEqual(['admin', 'editor']);
    expect(first.body.roles[0].built_in).toBe(true);
    const second = await asAdmin.get(`/admin/api/roles?limit=2&after=${first.body.next}`).expect(200);
    expect(second.body).toEqual({ roles: [{ name: 'viewer', description: '', built_in: false }], next: null });
    await asAdmin.delete('/admin/api/roles/viewer').expect(204);
    await asAdmin.delete('/admin/api/roles/viewer').expect(404);
    expect((await asAdmin.delete('/admin/api/roles/admin').expect(409)).body.error_description).toContain('built in');
  });

  it.each([
    [{ name: 'Editor' }, 'name must be'],
    [{ name: '' }, 'name must be'],
    [{}, 'name is required'],
    [{ name: 'x'.repeat(65) }, 'name must be'],
    [{ name: 'editor', description: 'x'.repeat(201) }, 'description must be text of at most 200 characters'],
    [{ name: 'editor', description: 7 }, 'description must be'],
  ])('refuses %j with a 400 and defines nothing', async (body, words) => {
    const res = await asAdmin.post('/admin/api/roles', body).expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining(words) });
    expect(await RoleModel.countDocuments()).toBe(0);
  });

  it('refuses admin and a name taken, with 409; of 50 identical creates at once, one is made', async () => {
    await asAdmin.post('/admin/api/roles', { name: 'admin' }).expect(409);
    const answers = await Promise.all(Array.from({ length: 50 }, () => asAdmin.post('/admin/api/roles', { name: 'racer' })));
    expect(answers.filter((res) => res.status === 201)).toHaveLength(1);
    expect(answers.filter((res) => res.status === 409)).toHaveLength(49);
    expect(await RoleModel.countDocuments()).toBe(1);
  });

  it('holds at most 100 defined roles', async () => {
    await RoleModel.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: `r${i}`, description: '', createdAt: new Date() })));
    const res = await asAdmin.post('/admin/api/roles', { name: 'one-more' }).expect(400);
    expect(res.body.error_description).toBe('at most 100 roles may be defined');
  });
});

describe("a person's roles", () => {
  it('are given and taken, each an event in their activity naming the application', async () => {
    const person = await createUser();
    await asAdmin.post('/admin/api/roles', { name: 'editor' }).expect(201);
    await asAdmin.put(`/admin/api/people/${person.id}/roles/editor`).expect(204);
    await asAdmin.put(`/admin/api/people/${person.id}/roles/editor`).expect(204);
    await asAdmin.get(`/admin/api/people/${person.id}/roles`).expect(200, { roles: ['editor'] });
    await asAdmin.delete(`/admin/api/people/${person.id}/roles/editor`).expect(204);
    await asAdmin.get(`/admin/api/people/${person.id}/roles`).expect(200, { roles: [] });
    const kinds = (await ActivityModel.find({ userId: person.id }).sort({ at: 1 }).lean()).map((entry) => entry.kind);
    expect(kinds.filter((kind) => kind.startsWith('role-'))).toEqual(['role-given', 'role-given', 'role-taken']);
    await asAdmin.put(`/admin/api/people/${person.id}/roles/nobody`).expect(404);
    await asAdmin.put(`/admin/api/people/no-such-person/roles/editor`).expect(404);
  });

  it('give and take admin as any other role, never touching or reading permissionFlags', async () => {
    const person = await createUser();
    await asAdmin.put(`/admin/api/people/${person.id}/roles/admin`).expect(204);
    expect(await UserModel.findById(person.id).lean()).toMatchObject({ roles: ['admin'], permissionFlags: 1 });
    await asAdmin.delete(`/admin/api/people/${person.id}/roles/admin`).expect(204);
    expect((await UserModel.findById(person.id).lean())!.permissionFlags).toBe(1);
    await UserModel.updateOne({ _id: person.id }, { $set: { permissionFlags: 9 } });
    await asAdmin.get(`/admin/api/people/${person.id}/roles`).expect(200, { roles: [] });
  });

  it('and the roles themselves are events naming the operator’s client: defined, given, taken, deleted', async () => {
    const person = await createUser();
    const since = new Date();
    await asAdmin.post('/admin/api/roles', { name: 'auditor' }).expect(201);
    await asAdmin.put(`/admin/api/people/${person.id}/roles/auditor`).expect(204);
    await asAdmin.delete(`/admin/api/people/${person.id}/roles/auditor`).expect(204);
    await asAdmin.delete('/admin/api/roles/auditor').expect(204);
    const kinds = ['role-defined', 'role-given', 'role-taken', 'role-deleted'];
    const events = (await ActivityModel.find().sort({ at: 1 }).lean()).filter((event) => event.at >= since && kinds.includes(event.kind));
    expect(events.map((event) => [event.kind, event.userId ?? null])).toEqual([
      ['role-defined', null],
      ['role-given', person.id],
      ['role-taken', person.id],
      ['role-deleted', null],
    ]);
    for (const event of events) expect(event.actor).toMatch(/^client:/);
  });

  it('are taken from everyone when the role is deleted', async () => {
    const person = await createUser();
    await asAdmin.post('/admin/api/roles', { name: 'editor' }).expect(201);
    await asAdmin.put(`/admin/api/people/${person.id}/roles/editor`).expect(204);
    await asAdmin.delete('/admin/api/roles/editor').expect(204);
    await asAdmin.get(`/admin/api/people/${person.id}/roles`).expect(200, { roles: [] });
  });
});

describe('the roles claim', () => {
  it('is in the next ID token, userinfo and JWT access token of an application that asked for roles, and gone once taken', async () => {
    const issuer = (await request(app).get('/.well-known/openid-configuration').expect(200)).body as {
      issuer: string;
      scopes_supported: string[];
      claims_supported: string[];
    };
    expect(issuer.scopes_supported).toContain('roles');
    expect(issuer.claims_supported).toContain('roles');
    const jwks = createLocalJWKSet((await request(app).get('/oauth/jwks').expect(200)).body as JSONWebKeySet);
    const person = await createUser();
    await asAdmin.post('/admin/api/roles', { name: 'editor' }).expect(201);
    await asAdmin.put(`/admin/api/people/${person.id}/roles/editor`).expect(204);
    const client = await registerClient({ grants: ['authorization_code', 'refresh_token'] });

    const { code } = await authorizationCode(app, client, { scope: 'openid roles offline_access', resource: issuer.issuer }, person);
    const tokens = await request(app).post('/oauth/token').type('form').send(codeExchange(client, code)).expect(200);
    expect(decodeJwt(tokens.body.id_token).roles).toEqual(['editor']);
    expect((await jwtVerify(tokens.body.access_token, jwks, { typ: 'at+jwt' })).payload.roles).toEqual(['editor']);
    const info = await request(app).get('/oauth/userinfo').set('Authorization', `Bearer ${tokens.body.access_token}`).expect(200);
    expect(info.body.roles).toEqual(['editor']);

    await asAdmin.delete(`/admin/api/people/${person.id}/roles/editor`).expect(204);
    const refreshed = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({
        grant_type: 'refresh_token',
        refresh_token: tokens.body.refresh_token,
        client_id: client.client_id,
        client_secret: client.client_secret,
      })
      .expect(200);
    expect(decodeJwt(refreshed.body.id_token).roles).toEqual([]);
    expect(decodeJwt(refreshed.body.access_token).roles).toEqual([]);
  });

  it('is not given to an application that did not ask for roles', async () => {
    const person = await createUser();
    await asAdmin.put(`/admin/api/people/${person.id}/roles/admin`).expect(204);
    const client = await registerClient({ grants: ['authorization_code'] });
    const { code } = await authorizationCode(app, client, { scope: 'openid' }, person);
    const tokens = await request(app).post('/oauth/token').type('form').send(codeExchange(client, code)).expect(200);
    expect(decodeJwt(tokens.body.id_token)).not.toHaveProperty('roles');
  });
});
