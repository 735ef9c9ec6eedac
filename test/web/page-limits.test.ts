// Every rule the OpenAPI document states for a page's query or form (its fields, or the OAuth
// parameters of a form a page posts, and the JSON the pages' scripts post) is the one the server holds
// a value to: walking the document, one character over a field's maxLength, or a value not among its
// enum, is refused with a 400, and a wrong-length CSRF token with a 403 (issue 35). The walker is an operator signed in with a second factor just now, so
// no page sends it to sign in or to confirm before the form is read.
import request from 'supertest';
import { RULES_MARK } from '../../src/common/validation';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp } from '../helpers/factors';
import { csrfFrom, registerClient, signedInAgent } from '../helpers/oauth';
import * as usersService from '../../src/users/users.service';

useTestDatabase();
const app = testApp();

type Field = { maxLength?: number; maximum?: number; enum?: string[]; type?: string };
type Parameter = { in: string; name: string; schema: Field; [RULES_MARK]?: string };
type Body = { properties?: Record<string, Field>; [RULES_MARK]?: string };
type Operation = {
  operationId: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Body }> };
};

const FROM_FIELDS = /common\/request-fields\.ts/;
/** A value the field refuses: one character over its length, or one not among its values. */
const refusedValue = (field: Field): unknown =>
  field.type === 'object'
    ? 'not an object'
    : field.maxLength !== undefined
      ? 'a'.repeat(field.maxLength + 1)
      : field.maximum !== undefined
        ? String(field.maximum + 1)
        : field.enum
          ? 'not-one-of-them'
          : undefined;
/** The pages' operations: anonymous or signed in with a session (the admin API has its own walk). */
const onPages = (operation: Operation) => !operation.security || ['[]', '[{"session":[]}]'].includes(JSON.stringify(operation.security));

it('refuses a value over each rule the document states for the pages, and a CSRF token of another length', async () => {
  const person = await createUser();
  await usersService.setRole(person.id, 'admin', true);
  const { agent } = await signedInAgent(app, person);
  await enrolTotp(agent);
  const csrf = csrfFrom((await agent.get('/account').expect(200)).text);
  const { body: document } = await request(app).get('/openapi.json').expect(200);
  // Path parameters name what exists (another person, an application); the others need not.
  const target = await createUser();
  const client = await registerClient();
  const filled = (path: string) =>
    path
      .replace('{clientId}', client.client_id)
      .replace('{id}', path.startsWith('/admin/people/') ? target.id : 'x')
      .replace(/\{[^}]+\}/g, 'x');

  const walked: string[] = [];
  const answers: { walked: string; status: number; expected: number }[] = [];
  const paths = document.paths as Record<string, { parameters?: Parameter[] } & Record<string, Operation>>;
  for (const [path, { parameters: shared = [], ...methods }] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods as Record<string, Operation>)) {
      if (!onPages(operation)) continue;
      const query = [...shared, ...(operation.parameters ?? [])].filter(
        (parameter) => parameter.in === 'query' && FROM_FIELDS.test(parameter[RULES_MARK] ?? ''),
      );
      for (const parameter of query) {
        const value = refusedValue(parameter.schema);
        if (value === undefined) continue;
        const sent = agent[method as 'get'](filled(path)).query({ [parameter.name]: value });
        const { status } = method === 'get' ? await sent : await sent.type('form').send({ _csrf: csrf });
        answers.push({ walked: `${method} ${path} ?${parameter.name}`, status, expected: 400 });
      }
      for (const [type, { schema }] of Object.entries(operation.requestBody?.content ?? {})) {
        // The pages' fields, and the OAuth forms a page posts (consent, the device page, end-session's).
        const pageForm = schema.properties?._csrf !== undefined;
        if (!FROM_FIELDS.test(schema[RULES_MARK] ?? '') && !pageForm) continue;
        for (const [name, field] of Object.entries(schema.properties ?? {})) {
          const value = name === '_csrf' ? 'a'.repeat(csrf.length + 1) : refusedValue(field);
          if (value === undefined) continue;
          // An anonymous form's token is its page's (a signed cookie) where the path is not under the session.
          const page = method === 'post' && !filled(path).includes('/admin/') ? await agent.get(filled(path)) : undefined;
          const token = page?.status === 200 && page.text.includes('name="_csrf"') ? csrfFrom(page.text) : csrf;
          const body = { _csrf: token, [name]: value };
          const { status } = await agent
            .post(filled(path))
            .type(type === 'application/json' ? 'json' : 'form')
            .send(body);
          // A token of another length is a wrong one (403); the second step's JSON routes answer 400
          // first when no sign-in waits, as they do for any body (factors.routes.ts).
          const expected = name === '_csrf' && !path.startsWith('/login/verify/') ? 403 : 400;
          answers.push({ walked: `${method} ${path} ${name}`, status, expected });
        }
      }
    }
  }
  for (const answer of answers) walked.push(answer.walked);
  expect(answers.filter(({ status, expected }) => status !== expected)).toEqual([]);
  for (const expected of [
    'get /login ?login_hint',
    'post /login email',
    'post /login remember',
    'post /logout _csrf',
    'get /account ?activity_page',
    'get /reset-password ?token',
    'post /account/profile address.country',
    'post /reset-password remove_recent_factors',
    'post /login/verify code',
    'post /account/passkeys name',
    'post /login/passkey response',
    'post /account/passkeys/{id}/rename name',
    'post /admin/applications/new client_name',
    'post /admin/applications/new token_endpoint_auth_method',
    'post /admin/people/{id}/disable _csrf',
    'get /device ?user_code',
    'post /device user_code',
    'post /oauth/end-session confirm',
    'post /home/applications/{clientId}/revoke back',
    'post /oauth/callback-debug client_secret',
  ])
    expect(walked).toContain(expected);
});
