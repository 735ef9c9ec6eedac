// Whether an access token is alive is one question for every format, sender constraint and API of this
// server (issue 48, findings 3 and 4; docs/security.md): an opaque token and an RFC 9068 JWT, sent as
// Bearer or with DPoP, at /api/user, userinfo, the catalogue and the admin API, each end at once when
// they are revoked, their client is deleted (or, for the admin scope, is no longer the operator's),
// their person is disabled or deleted, or changes their password. One row per reason, format, sender
// and API: live before, refused after.
import request from 'supertest';
import * as clientsService from '../../src/oauth/clients/clients.service';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { dpopProof, newDpopKey, type DpopKey } from '../helpers/dpop';
import { createUser } from '../helpers/factories';
import { clientSecretPost, operatorToken, registerClient } from '../helpers/oauth';
import { msUntilFalse } from '../helpers/polling';

useTestDatabase();
const app = testApp();
let issuer: string;
let operator: string;

beforeAll(async () => {
  issuer = (await request(app).get('/.well-known/openid-configuration').expect(200)).body.issuer;
  operator = await operatorToken(app);
});

type Format = 'opaque' | 'jwt';
type Sender = 'Bearer' | 'DPoP';

interface Issued {
  token: string;
  key?: DpopKey;
  client: { client_id: string; client_secret: string };
  userId?: string;
  user?: { email: string; password: string };
}

/** The token request's own fields for a format, and a DPoP proof when the sender is DPoP. */
async function tokenRequest(format: Format, sender: Sender, body: Record<string, string>) {
  const key = sender === 'DPoP' ? await newDpopKey() : undefined;
  let req = request(app).post('/oauth/token').type('form');
  if (key) req = req.set('DPoP', await dpopProof(key, 'POST', `${issuer}/oauth/token`));
  const res = await req.send({ ...body, ...(format === 'jwt' ? { resource: issuer } : {}) }).expect(200);
  expect(res.body.token_type).toBe(sender === 'DPoP' ? 'DPoP' : 'Bearer');
  expect((res.body.access_token as string).split('.')).toHaveLength(format === 'jwt' ? 3 : 1);
  return { token: res.body.access_token as string, key };
}

/** A person's token from the password grant. */
async function personToken(format: Format, sender: Sender): Promise<Issued> {
  const client = await registerClient({ grants: ['password'] });
  const user = await createUser();
  const body = { grant_type: 'password', ...clientSecretPost(client), username: user.email, password: user.password, scope: 'openid read' };
  return { ...(await tokenRequest(format, sender, body)), client, userId: user.id, user };
}

/** An operator client's own token with the admin scope. */
async function operatorClientToken(format: Format, sender: Sender): Promise<Issued> {
  const client = await registerClient({ grants: ['client_credentials'] });
  await clientsService.update(client.client_id, { operator_access: true });
  const body = { grant_type: 'client_credentials', ...clientSecretPost(client), scope: 'admin' };
  return { ...(await tokenRequest(format, sender, body)), client };
}

const APIS = {
  '/api/user': { method: 'get', path: '/api/user' },
  userinfo: { method: 'get', path: '/oauth/userinfo' },
  catalogue: { method: 'get', path: '/api/v1/products' },
  'admin API': { method: 'get', path: '/admin/api/people' },
} as const;
type Api = keyof typeof APIS;
const ADMIN_API: Api = 'admin API';

async function call(api: Api, issued: Issued): Promise<request.Response> {
  const { method, path } = APIS[api];
  let req = request(app)[method](path);
  if (issued.key) {
    req = req
      .set('Authorization', `DPoP ${issued.token}`)
      .set('DPoP', await dpopProof(issued.key, method.toUpperCase(), `${issuer}${path}`, issued.token));
  } else {
    req = req.set('Authorization', `Bearer ${issued.token}`);
  }
  return req;
}

/** What ends a person's token. */
const PERSON_ENDINGS: Record<string, (issued: Issued) => Promise<unknown>> = {
  'it is revoked': (issued) =>
    request(app)
      .post('/oauth/revoke')
      .type('form')
      .send({ token: issued.token, ...clientSecretPost(issued.client) })
      .expect(200),
  'its client is deleted': (issued) =>
    request(app).delete(`/admin/api/applications/${issued.client.client_id}`).set('Authorization', `Bearer ${operator}`).expect(204),
  'its person is disabled': (issued) =>
    request(app).post(`/admin/api/people/${issued.userId!}/disable`).set('Authorization', `Bearer ${operator}`).expect(204),
  'its person is deleted': (issued) => request(app).delete(`/users/${issued.userId!}`).expect(204),
  'its person changes their password': (issued) =>
    request(app).patch(`/users/${issued.userId!}`).send({ password: 'a-new-password' }).expect(204),
};

/** What ends an operator client's own token. */
const CLIENT_ENDINGS: Record<string, (issued: Issued) => Promise<unknown>> = {
  'it is revoked': PERSON_ENDINGS['it is revoked'],
  'its client is deleted': PERSON_ENDINGS['its client is deleted'],
  'its client is no longer the operator’s': (issued) => clientsService.update(issued.client.client_id, { operator_access: false }),
};

const FORMATS: Format[] = ['opaque', 'jwt'];
const SENDERS: Sender[] = ['Bearer', 'DPoP'];

const personRows = Object.keys(PERSON_ENDINGS).flatMap((ending) =>
  FORMATS.flatMap((format) =>
    SENDERS.flatMap((sender) => (['/api/user', 'userinfo', 'catalogue'] as Api[]).map((api) => ({ ending, format, sender, api }))),
  ),
);
const clientRows = Object.keys(CLIENT_ENDINGS).flatMap((ending) =>
  FORMATS.flatMap((format) => SENDERS.map((sender) => ({ ending, format, sender, api: ADMIN_API }))),
);

describe("a person's token", () => {
  it.each(personRows)('ends at once when $ending: $format, $sender, at $api', async ({ ending, format, sender, api }) => {
    const issued = await personToken(format, sender);
    expect((await call(api, issued)).status).toBe(200);
    await PERSON_ENDINGS[ending](issued);
    const after = await call(api, issued);
    expect(after.status).toBe(401);
    expect(after.headers['www-authenticate']).toMatch(sender === 'DPoP' ? /^DPoP / : /^Bearer /);
  });
});

describe("an operator client's own token", () => {
  it.each(clientRows)('ends at once when $ending: $format, $sender, at the $api', async ({ ending, format, sender, api }) => {
    const issued = await operatorClientToken(format, sender);
    expect((await call(api, issued)).status).toBe(200);
    await CLIENT_ENDINGS[ending](issued);
    expect((await call(api, issued)).status).toBe(401);
    // A delete with it changes nothing either.
    const target = await createUser();
    const { method } = { method: 'delete' as const };
    let req = request(app)[method](`/admin/api/people/${target.id}`);
    if (issued.key) {
      req = req
        .set('Authorization', `DPoP ${issued.token}`)
        .set('DPoP', await dpopProof(issued.key, 'DELETE', `${issuer}/admin/api/people/${target.id}`, issued.token));
    } else req = req.set('Authorization', `Bearer ${issued.token}`);
    expect((await req).status).toBe(401);
    await request(app).get(`/users/${target.id}`).expect(200);
  });

  it('says active: false at introspection once revoked, and for a deleted client', async () => {
    const issued = await operatorClientToken('jwt', 'Bearer');
    const introspect = () =>
      request(app)
        .post('/oauth/introspect')
        .type('form')
        .send({ token: issued.token, ...clientSecretPost(issued.client) });
    expect((await introspect().expect(200)).body.active).toBe(true);
    await clientsService.update(issued.client.client_id, { operator_access: false });
    expect((await introspect().expect(200)).body).toEqual({ active: false });
  });
});

describe('a person’s JWT at introspection', () => {
  it('is active: false once the person is disabled', async () => {
    const issued = await personToken('jwt', 'Bearer');
    const introspect = () =>
      request(app)
        .post('/oauth/introspect')
        .type('form')
        .send({ token: issued.token, ...clientSecretPost(issued.client) });
    expect((await introspect().expect(200)).body.active).toBe(true);
    await PERSON_ENDINGS['its person is disabled'](issued);
    expect((await introspect().expect(200)).body).toEqual({ active: false });
  });
});

describe('a revoked JWT sent 100 times at once', () => {
  it.each([
    ['one instance', 1],
    ['two instances', 2],
  ])('opens nothing on %s: the admin API deletes no one, /api/user answers no one', async (_name, count) => {
    const apps = [app, ...Array.from({ length: count - 1 }, () => testApp())];
    const target = await createUser();
    const admin = await operatorClientToken('jwt', 'Bearer');
    const person = await personToken('jwt', 'Bearer');
    const bearer = (token: string) => `Bearer ${token}`;
    // Every instance has seen both tokens live (and may have kept them).
    for (const on of apps) {
      await request(on).get('/admin/api/people').set('Authorization', bearer(admin.token)).expect(200);
      await request(on).get('/api/user').set('Authorization', bearer(person.token)).expect(200);
    }
    await PERSON_ENDINGS['it is revoked'](admin);
    await PERSON_ENDINGS['it is revoked'](person);
    // Refused at once where revoked; within a second on another instance (docs/security.md).
    for (const on of apps.slice(1)) {
      const live = async () => (await request(on).get('/api/user').set('Authorization', bearer(person.token))).status === 200;
      expect(await msUntilFalse(live)).toBeLessThanOrEqual(1000);
      const liveAdmin = async () => (await request(on).get('/admin/api/people').set('Authorization', bearer(admin.token))).status === 200;
      expect(await msUntilFalse(liveAdmin)).toBeLessThanOrEqual(1000);
    }
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        i % 2
          ? request(apps[i % count])
              .delete(`/admin/api/people/${target.id}`)
              .set('Authorization', bearer(admin.token))
          : request(apps[i % count])
              .get('/api/user')
              .set('Authorization', bearer(person.token)),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(100).fill(401));
    await request(app).get(`/users/${target.id}`).expect(200);
  });
});
