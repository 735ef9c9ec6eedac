// The OpenAPI document as client developers and their tools read it: ids, security, examples, and
// Redocly's recommended ruleset.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openApiDocument } from '../../src/openapi/openapi.document';
import { schemaProblem } from '../helpers/openapi-validator';

type Media = { schema: Record<string, unknown>; example?: unknown };
type Operation = {
  operationId?: string;
  security?: unknown[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};

const operations = Object.entries(openApiDocument.paths).flatMap(([route, item]) =>
  Object.entries(item as Record<string, Operation>)
    .filter(([method]) => ['get', 'put', 'post', 'patch', 'delete'].includes(method))
    .map(([method, operation]) => ({ where: `${method.toUpperCase()} ${route}`, operation })),
);

describe('the OpenAPI document for client tools', () => {
  it('gives every operation a unique operationId and its security, public ones as security: []', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.filter(({ operation }) => !Array.isArray(operation.security)).map(({ where }) => where)).toEqual([]);
    const publicOperations = operations.filter(({ operation }) => operation.security?.length === 0).map(({ where }) => where);
    expect(publicOperations).toEqual(expect.arrayContaining(['POST /users', 'POST /auth', 'GET /hello', 'GET /oauth/jwks']));
    expect(operations.find(({ where }) => where === 'POST /oauth/token')?.operation.security).toEqual([{ clientBasic: [] }, {}]);
  });

  it('has examples on the main bodies, and every example matches its schema', () => {
    const examples = operations
      .flatMap(({ where, operation }) => [
        ...Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) => ({ at: `${where} request ${type}`, media })),
        ...Object.entries(operation.responses).flatMap(([status, response]) =>
          Object.entries(response.content ?? {}).map(([type, media]) => ({ at: `${where} ${status} ${type}`, media })),
        ),
      ])
      .filter(({ media }) => media.example !== undefined);
    for (const expected of [
      'POST /users request',
      'POST /auth 201',
      'POST /oauth/token request',
      'POST /oauth/token 200',
      'GET /api/v1/products 200',
      'GET /weather/{city} 200',
    ]) {
      expect(examples.map(({ at }) => at).some((at) => at.startsWith(expected))).toBe(true);
    }
    const problems = examples.map(({ at, media }) => [at, schemaProblem(media.schema, media.example)]).filter(([, problem]) => problem);
    expect(problems).toEqual([]);
  });
});

// Each warning Redocly's recommended ruleset still gives, and why it stays.
const JUSTIFIED_WARNINGS = [
  // The project is private (package.json: UNLICENSED): there is no SPDX identifier or URL to give.
  'info-license-strict #/info/license',
  // Browser form posts and the provider round trips answer with a redirect (post/redirect/get), never a 2xx.
  ...[
    '/auth/{provider}/get',
    '/auth/upstream/{id}/get',
    '/auth/upstream/{id}/callback/get',
    '/login/link/post',
    '/login/link/cancel/post',
    '/account/providers/{id}/link/post',
    '/account/providers/{id}/unlink/post',
    '/admin/get',
    '/admin/keys/rotate/post',
    '/admin/agents/hosts/post',
    '/admin/agents/hosts/forget/post',
    '/admin/agents/exchange/post',
    '/admin/agents/exchange/delete/post',
    '/admin/people/{id}/disable/post',
    '/admin/people/{id}/applications/{clientId}/revoke/post',
    '/admin/people/{id}/reset-link/post',
    '/admin/people/{id}/delete/post',
    '/admin/people/{id}/enable/post',
    '/admin/people/{id}/factors/reset/post',
    '/admin/people/{id}/sessions/end/post',
    '/admin/people/{id}/unlock/post',
    '/admin/people/{id}/roles/post',
    '/admin/people/{id}/roles/{name}/take/post',
    '/admin/people/{id}/sessions/{handle}/end/post',
    '/admin/applications/{clientId}/post',
    '/admin/applications/{clientId}/delete/post',
    '/login/post',
    '/logout/post',
    '/home/applications/{clientId}/revoke/post',
    '/home/applications/{clientId}/open/get',
    '/signup/post',
    '/account/verify-email/post',
    '/account/profile/post',
    '/account/password/post',
    '/account/sessions/sign-out-others/post',
    '/account/sessions/{handle}/sign-out/post',
    '/account/totp/remove/post',
    '/account/recovery-codes/post',
    '/account/passkeys/{id}/rename/post',
    '/account/passkeys/{id}/remove/post',
    '/login/step-up/get',
    '/login/verify/post',
  ].map(
    (at) => `operation-2xx-response #/paths/${at.replace(/\/(get|post)$/, '').replaceAll('/', '~1')}/${at.split('/').at(-1)}/responses`,
  ),
  // Fixed documents and probes take no input a client could get wrong: there is no 4xx to document.
  ...[
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-protected-resource',
    '/.well-known/openid-configuration',
    '/hello',
    '/healthz',
    '/readyz',
    '/',
    '/docs/assets/init.js',
    '/docs/assets/docs.css',
  ].map((at) => `operation-4xx-response #/paths/${at.replaceAll('/', '~1')}/get/responses`),
];

describe("Redocly's recommended ruleset", () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('finds no error, and only the justified warnings', async () => {
    await writeFile(path.join(folder, 'openapi.json'), JSON.stringify(openApiDocument, null, 2));
    const redocly = path.resolve(__dirname, '../../node_modules/.bin/redocly');
    const run = await promisify(execFile)(redocly, ['lint', 'openapi.json', '--format=json', '--max-problems=500'], {
      cwd: folder,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((err: { stdout: string }) => err);
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(errors).toEqual([]);
    const warnings = report.problems
      .filter((problem) => problem.severity === 'warn')
      .map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}`);
    expect(warnings.sort()).toEqual([...JUSTIFIED_WARNINGS].sort());
  }, 60_000);
});
