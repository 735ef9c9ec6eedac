// Every length the OpenAPI document states for the authorization endpoint's query is the one the
// server enforces (protocol.ts, PARAMETER_LENGTHS and LIMITS): walking the document, a value at the
// limit goes on to sign-in, and one character more is invalid_request (issue 35).
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { REDIRECT_URI, registerClient } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

interface Parameter {
  name: string;
  in: string;
  schema: { maxLength?: number; pattern?: string };
}

/** A value of exactly `length` characters that the parameter's pattern (if any) allows. */
function valueOf(name: string, length: number): string {
  if (name === 'request') {
    // A compact JWT shape: header.payload.signature, padded in the signature.
    const head = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.`;
    return head + 'A'.repeat(length - head.length);
  }
  if (name === 'scope') {
    // Known scopes and their spaces, exactly `length` long: read (4 + 1) and write (5 + 1), less the last space.
    const writes = Array.from({ length: 6 }, (_, i) => i).find((b) => (length + 1 - 6 * b) % 5 === 0)!;
    return [...Array<string>((length + 1 - 6 * writes) / 5).fill('read'), ...Array<string>(writes).fill('write')].join(' ');
  }
  return 'a'.repeat(length);
}

it('refuses one character over each length the document states for GET /oauth/authorize, and takes the limit itself', async () => {
  const { body: document } = await request(app).get('/openapi.json').expect(200);
  const parameters = (document.paths['/oauth/authorize'].get.parameters as Parameter[]).filter(
    (parameter) => parameter.in === 'query' && parameter.schema.maxLength !== undefined && !parameter.schema.pattern?.startsWith('^('),
  );
  expect(parameters.map((parameter) => parameter.name)).toEqual(
    expect.arrayContaining(['nonce', 'login_hint', 'acr_values', 'ui_locales', 'state']),
  );
  const client = await registerClient();
  const base = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'read' };
  // request and claims promise in a URL less than the server takes (oauth.openapi.ts): not walked here.
  for (const { name, schema } of parameters.filter((parameter) => !['request', 'claims'].includes(parameter.name))) {
    const limit = schema.maxLength!;
    const sent = (length: number) =>
      request(app)
        .get('/oauth/authorize')
        .query({ ...base, [name]: valueOf(name, length) });
    const over = await sent(limit + 1);
    const overError = over.status === 302 ? new URL(over.headers.location).searchParams.get('error') : over.status;
    expect({ name, refused: overError }).toEqual({ name, refused: over.status === 302 ? 'invalid_request' : 400 });
    if (name === 'request' || name === 'claims') continue; // their content is checked next, not only their length
    const at = await sent(limit);
    if (name === 'resource') {
      // Its length passes; no API has that identifier, which is the next check (RFC 8707 invalid_target).
      expect({ name, refused: /invalid_target/.test(at.text) }).toEqual({ name, refused: true });
      continue;
    }
    if (name === 'request_uri') {
      // Its length passes; the client registered no such URI, which is the next check.
      expect({ name, refused: /invalid_request_uri/.test(at.text) }).toEqual({ name, refused: true });
      continue;
    }
    // Not signed in: on to the sign-in page, the request kept.
    expect({ name, status: at.status, to: at.headers.location?.split('?')[0] }).toEqual({ name, status: 302, to: '/login' });
  }
});
