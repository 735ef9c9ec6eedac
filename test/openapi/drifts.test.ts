// Five places where the API reference once said one thing and the server did another. Each rule now
// comes from one place (oauth/protocol.ts, the validation constants); testApp() checks every request
// the server accepts against the document, so these tests fail if the two drift apart again.
import request from 'supertest';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH } from '../../src/common/validation';
import { PUBLIC_CLIENT_GRANTS, SELF_REGISTRABLE_GRANTS } from '../../src/oauth/protocol';
import { openApiDocument } from '../../src/openapi/openapi.document';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { passwordGrant } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

interface Schema {
  description: string;
  properties: Record<string, { maxItems?: number; maxLength?: number }>;
}
const doc = openApiDocument as unknown as {
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Schema }> } }>>;
};

async function jwtFor() {
  const user = await createUser();
  const res = await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
  return `Bearer ${res.body.accessToken}`;
}

it('documents the OpenID scopes of a token request, which the server accepts', async () => {
  const { tokens } = await passwordGrant(app, { scope: 'openid profile email' });
  expect(tokens.access_token).toEqual(expect.any(String));
});

it('lets a registration name every grant type it may have, as many as there are', async () => {
  const res = await request(app)
    .post('/oauth/register')
    .set('Authorization', await jwtFor())
    .send({ redirect_uris: ['https://all.example.com/cb'], grant_types: [...SELF_REGISTRABLE_GRANTS], response_types: ['code', 'token'] })
    .expect(201);
  expect(res.body.grant_types).toEqual([...SELF_REGISTRABLE_GRANTS]);
  expect(doc.components.schemas.ClientMetadataRequest.properties.grant_types.maxItems).toBe(SELF_REGISTRABLE_GRANTS.length);
});

it('says which grants a public client may use, the device grant among them, as the server applies it', async () => {
  const { description } = doc.components.schemas.ClientMetadataRequest;
  for (const grant of PUBLIC_CLIENT_GRANTS) expect(description).toContain(grant);
  await request(app)
    .post('/oauth/register')
    .set('Authorization', await jwtFor())
    .send({ redirect_uris: ['https://public.example.com/cb'], token_endpoint_auth_method: 'none', grant_types: [...PUBLIC_CLIENT_GRANTS] })
    .expect(201);
});

it('applies one redirect URI rule to POST /oauth/clients and to dynamic registration', async () => {
  const bearer = await jwtFor();
  const register = (redirect_uri: string) =>
    request(app)
      .post('/oauth/clients')
      .set('Authorization', bearer)
      .send({ name: 'App', website: 'https://app.example.com', redirect_uri });
  await register('com.example.app:/callback').expect(201);
  await register('http://127.0.0.1:8123/cb').expect(201);
  for (const refused of ['http://app.example.com/cb', 'javascript.x:alert(1)']) {
    const res = await register(refused).expect(400);
    expect(JSON.stringify(res.body)).toContain('http on a loopback address');
  }
});

it('documents the length limits of POST /auth, which the server enforces', async () => {
  const schema = doc.paths['/auth'].post.requestBody.content['application/json'].schema;
  expect(schema.properties.email.maxLength).toBe(MAX_EMAIL_LENGTH);
  expect(schema.properties.password.maxLength).toBe(MAX_PASSWORD_LENGTH);
  await request(app)
    .post('/auth')
    .send({ email: 'someone@example.com', password: 'x'.repeat(MAX_PASSWORD_LENGTH + 1) })
    .expect(400);
});
