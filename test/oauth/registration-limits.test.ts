// Every rule the OpenAPI document states for a registration's members (ClientMetadataRequest, read by
// client-metadata.ts) and for the admin API's changes is the one the server holds a value to: walking
// the document, one character over a maxLength, one item over a maxItems, a value not among an enum
// or a non-boolean for a boolean is refused with RFC 7591's 400, and registers or changes nothing
// (issue 35).
import request from 'supertest';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { operatorToken, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

type Member = { type?: string; maxLength?: number; maxItems?: number; enum?: string[]; items?: Member; format?: string };
type Body = { properties: Record<string, Member> };

/** A value past one of the member's stated rules, with which rule it breaks; none when it states none. */
function pastItsRules(member: Member): { value: unknown; rule: string }[] {
  const text = (length: number) => (member.format === 'uri' ? `https://app.example.com/${'a'.repeat(length - 24)}` : 'a'.repeat(length));
  const past: { value: unknown; rule: string }[] = [];
  if (member.type === 'string' && member.maxLength !== undefined) past.push({ value: text(member.maxLength + 1), rule: 'maxLength' });
  if (member.type === 'string' && member.enum) past.push({ value: 'not-one-of-them', rule: 'enum' });
  if (member.type === 'boolean') past.push({ value: 'yes', rule: 'type' });
  if (member.type === 'array' && member.maxItems !== undefined) {
    const items = Array.from({ length: member.maxItems + 1 }, (_, i) => `https://app.example.com/cb${i}`);
    past.push({ value: items, rule: 'maxItems' });
  }
  if (member.type === 'array' && member.items?.maxLength !== undefined) {
    const item = `https://app.example.com/${'a'.repeat(member.items.maxLength - 23)}`;
    past.push({ value: [item], rule: 'items.maxLength' });
  }
  if (member.type === 'array' && member.items?.enum) past.push({ value: ['not-one-of-them'], rule: 'items.enum' });
  return past;
}

const REFUSED = ['invalid_client_metadata', 'invalid_redirect_uri'];

it('refuses a registration member past each rule the document states, registering nothing', async () => {
  const { body: document } = await request(app).get('/openapi.json').expect(200);
  const schema = document.components.schemas.ClientMetadataRequest as Body;
  const person = await createUser();
  const login = await request(app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  const before = await ClientModel.countDocuments();
  const walked: string[] = [];
  const answers: { walked: string; status: number; error: string }[] = [];
  for (const [name, member] of Object.entries(schema.properties)) {
    for (const { value, rule } of pastItsRules(member)) {
      const res = await request(app)
        .post('/oauth/register')
        .set('Authorization', `Bearer ${login.body.accessToken}`)
        .send({ redirect_uris: ['https://app.example.com/cb'], [name]: value });
      walked.push(`${name} ${rule}`);
      answers.push({ walked: `${name} ${rule}`, status: res.status, error: REFUSED.includes(res.body.error) ? 'refused' : res.text });
    }
  }
  expect(answers.filter(({ status, error }) => status !== 400 || error !== 'refused')).toEqual([]);
  expect(await ClientModel.countDocuments()).toBe(before);
  for (const expected of [
    'client_name maxLength',
    'redirect_uris maxItems',
    'redirect_uris items.maxLength',
    'grant_types maxItems',
    'grant_types items.enum',
    'response_types items.enum',
    'jwks_uri maxLength',
    'request_uris items.maxLength',
    'fapi_profile enum',
    'require_pushed_authorization_requests type',
    'token_endpoint_auth_method enum',
  ])
    expect(walked).toContain(expected);
});

it('refuses an admin API change past each rule the document states, changing nothing', async () => {
  const { body: document } = await request(app).get('/openapi.json').expect(200);
  const schema = document.paths['/admin/api/applications/{clientId}'].patch.requestBody.content['application/json'].schema as Body;
  const admin = `Bearer ${await operatorToken(app)}`;
  const client = await registerClient();
  const stored = await ClientModel.findById(client.client_id).lean();
  const answers: { walked: string; status: number; error: unknown }[] = [];
  for (const [name, member] of Object.entries(schema.properties)) {
    for (const { value, rule } of pastItsRules(member)) {
      const res = await request(app)
        .patch(`/admin/api/applications/${client.client_id}`)
        .set('Authorization', admin)
        .send({ [name]: value });
      answers.push({ walked: `${name} ${rule}`, status: res.status, error: REFUSED.includes(res.body.error) ? 'refused' : res.text });
    }
  }
  expect(answers.map(({ walked }) => walked)).toEqual(
    expect.arrayContaining(['client_name maxLength', 'client_uri maxLength', 'redirect_uris maxItems', 'grant_types items.enum']),
  );
  expect(answers.filter(({ status, error }) => status !== 400 || error !== 'refused')).toEqual([]);
  expect(await ClientModel.findById(client.client_id).lean()).toEqual(stored);
});
