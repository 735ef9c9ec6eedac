// Every length the OpenAPI document states for a form an OAuth endpoint takes is the one the server
// enforces (oauth.openapi.ts states maxLengthOf(name), oauth.parameters.ts refuses past it): walking
// the document, one character over a property's maxLength is refused naming that parameter, in the
// endpoint's own format, and a value at the limit is not refused for its length (issue 35).
import request from 'supertest';
import { RULES_MARK } from '../../src/common/validation';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';

useTestDatabase();
const app = testApp();

interface FormSchema {
  [RULES_MARK]?: string;
  properties?: Record<string, { maxLength?: number }>;
  required?: string[];
  anyOf?: FormSchema[];
}
type Operation = { requestBody?: { content?: Record<string, { schema: FormSchema }> }; security?: unknown[] };

/** The forms of an operation (each variant of an anyOf is one), without those a signed-in page posts (`_csrf` required). */
const formsOf = (operation: Operation): FormSchema[] => {
  const schema = operation.requestBody?.content?.['application/x-www-form-urlencoded']?.schema;
  if (!schema) return [];
  // The pages' own forms (common/request-fields.ts) have their walk (test/web/page-limits.test.ts).
  if (schema[RULES_MARK]?.startsWith('body fields')) return [];
  return (schema.anyOf ?? [schema]).filter((form) => form.properties && !form.required?.includes('_csrf'));
};

const tooLong = (name: string, limit: number) => `Parameter ${name} is longer than ${limit} characters`;

it('refuses one character over each length the document states for the OAuth forms, and not at the limit', async () => {
  const { body: document } = await request(app).get('/openapi.json').expect(200);
  const walked: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    // userinfo's form carries the access token, which the bearer guard reads first.
    if (path === '/oauth/userinfo' || !item.post) continue;
    for (const form of formsOf(item.post)) {
      for (const [name, { maxLength }] of Object.entries(form.properties!)) {
        if (maxLength === undefined) continue;
        const sent = (length: number) =>
          request(app)
            .post(path)
            .type('form')
            .send({ [name]: 'a'.repeat(length) });
        const over = await sent(maxLength + 1);
        expect({ path, name, status: over.status, said: over.text.includes(tooLong(name, maxLength)) }).toEqual({
          path,
          name,
          status: 400,
          said: true,
        });
        const at = await sent(maxLength);
        expect({ path, name, refusedForLength: at.text.includes(`Parameter ${name} is longer`) }).toEqual({
          path,
          name,
          refusedForLength: false,
        });
        walked.push(`${path} ${name}`);
      }
    }
  }
  // The token endpoint's parameters, revocation's and introspection's, PAR's, the device flow's, and
  // end-session's and the authorization endpoint's forms all walked.
  for (const expected of [
    '/oauth/token code',
    '/oauth/token client_assertion',
    '/oauth/revoke token',
    '/oauth/introspect token',
    '/oauth/par request',
    '/oauth/device_authorization scope',
    '/oauth/end-session id_token_hint',
    '/oauth/authorize nonce',
  ])
    expect(walked).toContain(expected);
});
