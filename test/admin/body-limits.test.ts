// Every rule the OpenAPI document states for the admin API's JSON bodies (a role, a resource, an
// application and its changes) is the one the server holds a value to: walking the document, each
// member past each stated rule (a length, a count, a range, a value not listed) sent beside a valid
// body is refused with a 400 naming that member, and creates nothing (issue 35).
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { operatorToken, REDIRECT_URI, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

type Member = { $ref?: string; type?: string; maxLength?: number; maxItems?: number; maximum?: number; enum?: string[]; items?: Member };
type Body = { $ref?: string; properties?: Record<string, Member> };
type Document = {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Body }> } }>>;
  components: { schemas: Record<string, Body> };
};

/** A valid body for each path, so that only the member walked is wrong. */
const VALID: Record<string, () => Record<string, unknown>> = {
  '/admin/api/roles': () => ({ name: `walker-${Date.now()}` }),
  '/admin/api/resources': () => ({ resource: `https://api-${Date.now()}.example.com`, scopes: ['things:read'] }),
  '/admin/api/applications': () => ({ redirect_uris: [REDIRECT_URI] }),
  '/admin/api/applications/{clientId}': () => ({ client_name: 'Walked' }),
  '/admin/api/exchange-policies': () => ({ client_id: walkedClientId, audience: 'https://api.example.com', scopes: ['things:read'] }),
  '/admin/api/document-hosts/{host}': () => ({ rule: 'allow' }),
};
/** The registered client the exchange rules walked name. */
let walkedClientId = '';

/** Values past the member's stated rules, each with the rule it breaks. */
function pastItsRules(member: Member): { value: unknown; rule: string }[] {
  const past: { value: unknown; rule: string }[] = [];
  if (member.type === 'string' && member.maxLength !== undefined) past.push({ value: 'a'.repeat(member.maxLength + 1), rule: 'maxLength' });
  if (member.type === 'string' && member.enum) past.push({ value: 'not-one-of-them', rule: 'enum' });
  if (member.type === 'integer' && member.maximum !== undefined) past.push({ value: member.maximum + 1, rule: 'maximum' });
  if (member.type === 'boolean') past.push({ value: 'yes', rule: 'type' });
  if (member.type === 'array' && member.maxItems !== undefined)
    past.push({ value: Array.from({ length: member.maxItems + 1 }, (_, i) => `a${i}`), rule: 'maxItems' });
  if (member.type === 'array' && member.items?.maxLength !== undefined)
    past.push({ value: ['a'.repeat(member.items.maxLength + 1)], rule: 'items.maxLength' });
  if (member.type === 'array' && member.items?.enum) past.push({ value: ['not-one-of-them'], rule: 'items.enum' });
  return past;
}

it("refuses each admin API body's member past each rule the document states, naming it", async () => {
  const document = (await request(app).get('/openapi.json').expect(200)).body as Document;
  const resolve = (schema: Body) => (schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema);
  const admin = `Bearer ${await operatorToken(app)}`;
  const client = await registerClient();
  walkedClientId = client.client_id;
  const walked: string[] = [];
  const wrong: unknown[] = [];
  for (const [path, item] of Object.entries(document.paths).filter(([path]) => path.startsWith('/admin/api/'))) {
    for (const [method, operation] of Object.entries(item)) {
      const schema = operation.requestBody?.content['application/json']?.schema;
      if (!schema) continue;
      expect({ path, valid: path in VALID }).toEqual({ path, valid: true });
      for (const [name, member] of Object.entries(resolve(schema).properties ?? {})) {
        for (const { value, rule } of pastItsRules(member)) {
          const res = await request(app)
            [method as 'post'](path.replace('{clientId}', client.client_id).replace('{host}', 'walked.example'))
            .set('Authorization', admin)
            .send({ ...VALID[path](), [name]: value });
          walked.push(`${method} ${path} ${name} ${rule}`);
          const described = String(res.body.error_description ?? '');
          if (res.status !== 400 || !described.includes(name)) wrong.push({ path, name, rule, status: res.status, body: res.body });
        }
      }
    }
  }
  expect(wrong).toEqual([]);
  for (const expected of [
    'post /admin/api/roles name maxLength',
    'post /admin/api/roles description maxLength',
    'post /admin/api/resources scopes maxItems',
    'post /admin/api/resources access_token_lifetime maximum',
    'post /admin/api/resources format enum',
    'post /admin/api/applications client_name maxLength',
    'patch /admin/api/applications/{clientId} grant_types items.enum',
    'put /admin/api/exchange-policies audience maxLength',
    'put /admin/api/exchange-policies token_type enum',
    'put /admin/api/exchange-policies scopes maxItems',
    'put /admin/api/document-hosts/{host} rule enum',
  ])
    expect(walked).toContain(expected);
});
