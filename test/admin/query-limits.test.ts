// The admin API's query rules are declared once (admin/admin.queries.ts): walking the document, each
// stated rule of each operation's query is enforced, one step past it refused with invalid_request
// naming the parameter, and a value at it taken (issue 35).
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { operatorToken, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

interface Parameter {
  name: string;
  in: string;
  schema: { type: string; minLength?: number; maxLength?: number; minimum?: number; maximum?: number; enum?: string[]; format?: string };
}

/** Values just past each rule the parameter states, and one at the edge it takes. */
function probes({ schema }: Parameter): { over: string[]; at: string[] } {
  if (schema.enum) return { over: ['not-one-of-them'], at: [schema.enum[0]] };
  if (schema.type === 'integer') return { over: [String(schema.minimum! - 1), String(schema.maximum! + 1)], at: [String(schema.maximum)] };
  if (schema.format === 'date-time') return { over: ['x'.repeat(schema.maxLength! + 1), ''], at: ['2026-01-01T00:00:00Z'] };
  return { over: ['x'.repeat(schema.maxLength! + 1), ''], at: ['x'.repeat(schema.maxLength!)] };
}

it('refuses one step past each rule the document states for an admin query, and takes a value at it', async () => {
  const admin = `Bearer ${await operatorToken(app)}`;
  const person = await createUser();
  const client = await registerClient();
  const { body: document } = await request(app).get('/openapi.json').expect(200);
  const walked: string[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, { get?: { parameters?: Parameter[] } }>)) {
    const parameters = (item.get?.parameters ?? []).filter((parameter) => parameter.in === 'query');
    if (!template.startsWith('/admin/api/') || parameters.length === 0) continue;
    const path = template.replace('{id}', person.id).replace('{clientId}', client.client_id);
    for (const parameter of parameters) {
      const { over, at } = probes(parameter);
      for (const value of over) {
        const res = await request(app)
          .get(path)
          .query({ [parameter.name]: value })
          .set('Authorization', admin);
        expect({ path, name: parameter.name, value: value.slice(0, 20), status: res.status, error: res.body.error }).toEqual({
          path,
          name: parameter.name,
          value: value.slice(0, 20),
          status: 400,
          error: 'invalid_request',
        });
        expect(res.body.error_description).toContain(parameter.name);
      }
      for (const value of at) {
        const res = await request(app)
          .get(path)
          .query({ [parameter.name]: value })
          .set('Authorization', admin);
        // `after` must also be a cursor the server gave: a made-up one is refused for that, not its length.
        if (parameter.name === 'after' && template === '/admin/api/events')
          expect(res.body.error_description).toMatch(/next of an earlier page/);
        else expect({ path, name: parameter.name, status: res.status }).toEqual({ path, name: parameter.name, status: 200 });
      }
      walked.push(`${template} ${parameter.name}`);
    }
  }
  expect(walked).toEqual(
    expect.arrayContaining([
      '/admin/api/people q',
      '/admin/api/people limit',
      '/admin/api/people/{id}/sessions limit',
      '/admin/api/applications after',
      '/admin/api/applications/{clientId}/grants limit',
      '/admin/api/events kind',
      '/admin/api/events since',
    ]),
  );
});
