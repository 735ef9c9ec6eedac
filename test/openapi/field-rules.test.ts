// Each validated operation's request body in the API reference is generated from the same
// express-validator schema that checks it (common/validation.ts, openapi.kit bodyOf). These tests read
// the document and hold the server to it: every documented required field and length limit is enforced.
import request from 'supertest';
import { openApiDocument } from '../../src/openapi/openapi.document';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';

useTestDatabase();
const app = testApp();

interface BodySchema {
  required?: string[];
  properties: Record<string, { type?: string; maxLength?: number; format?: string }>;
}
const doc = openApiDocument as unknown as {
  components: { schemas: Record<string, BodySchema> };
  paths: Record<string, Record<string, { requestBody: { content: { 'application/json': { schema: BodySchema } } } }>>;
};
const bodyOf = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;

/** A value of the field's kind, `length` characters long. */
function valueOfLength(format: string | undefined, length: number): string {
  if (format === 'idn-email') return `${'a'.repeat(length - 12)}@example.com`;
  if (format === 'uri') return `https://example.com/${'a'.repeat(length - 20)}`;
  return 'x'.repeat(length);
}

async function bearer() {
  const user = await createUser();
  const res = await request(app).post('/auth').send({ email: user.email, password: user.password }).expect(201);
  return `Bearer ${res.body.accessToken}`;
}

const operations = [
  {
    path: '/users',
    method: 'post',
    schema: () => doc.components.schemas.UserCreate,
    valid: () => ({ email: `n${Date.now()}@example.com`, password: 'secret-enough' }),
  },
  {
    path: '/auth',
    method: 'post',
    schema: () => bodyOf('/auth', 'post'),
    valid: () => ({ email: 'nobody@example.com', password: 'secret-enough' }),
  },
  {
    path: '/oauth/clients',
    method: 'post',
    schema: () => bodyOf('/oauth/clients', 'post'),
    valid: () => ({ name: 'App', website: 'https://app.example.com', redirect_uri: 'https://app.example.com/cb' }),
    auth: true,
  },
];

describe.each(operations)('$method $path', ({ path, schema, valid, auth }) => {
  let authorization = '';
  beforeEach(async () => {
    if (auth) authorization = await bearer();
  });
  const send = (body: Record<string, unknown>) => {
    const req = request(app).post(path);
    return auth ? req.set('Authorization', authorization).send(body) : req.send(body);
  };
  const failedFields = (res: request.Response) => (res.body.errors as { path: string }[]).map((error) => error.path);

  it('refuses the body without each field the document marks required', async () => {
    const required = schema().required ?? [];
    expect(required.length).toBeGreaterThan(0);
    for (const field of required) {
      const body: Record<string, unknown> = valid();
      delete body[field];
      const res = await send(body).expect(400);
      expect(failedFields(res)).toContain(field);
    }
  });

  it('refuses a value one character over each length limit the document states', async () => {
    const limited = Object.entries(schema().properties).filter(([, property]) => property.maxLength !== undefined);
    expect(limited.length).toBeGreaterThan(0);
    for (const [field, property] of limited) {
      const res = await send({ ...valid(), [field]: valueOfLength(property.format, property.maxLength! + 1) }).expect(400);
      expect(failedFields(res)).toEqual([field]);
    }
  });
});
