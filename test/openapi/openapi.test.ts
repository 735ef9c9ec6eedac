import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/common/logger';
import { openApiDocument } from '../../src/openapi/openapi.document';
import { testApp, testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { documentedRoutes, responseProblem } from '../helpers/openapi-validator';

useTestDatabase();

interface Layer {
  rawPath?: string;
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[]; staticPaths?: readonly string[] };
}

/** Every "METHOD /path" the app answers, read from Express's router, in OpenAPI's path syntax. */
function appRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const method of Object.keys(layer.route.methods)) {
            // `.all()` only answers 405 on the read-only catalogue; it is no operation of its own.
            if (method === '_all') continue;
            found.push(`${method.toUpperCase()} ${(prefix + path).replace(/(.)\/$/, '$1').replace(/[:*](\w+)/g, '{$1}')}`);
          }
        }
      } else if (layer.handle.staticPaths) {
        for (const path of layer.handle.staticPaths) found.push(`GET ${prefix + path}`);
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, prefix + (layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : ''));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...new Set(found)].sort();
}

describe('the OpenAPI document', () => {
  // With every optional route switched on: /metrics on the main port needs METRICS_TOKEN.
  const app = createApp({
    config: testConfig({ METRICS_TOKEN: 'metrics-token-that-is-at-least-32-characters' }),
    logger: createLogger('silent'),
  });

  it('lists exactly the routes the app serves, neither more nor fewer', () => {
    expect(documentedRoutes().sort()).toEqual(appRoutes(app));
  });

  it('is served at /openapi.json as OpenAPI 3.1', async () => {
    const res = await request(testApp()).get('/openapi.json').expect(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
    expect(res.body.openapi).toBe('3.1.0');
  });

  it("is served in two views, the operators' and everyone else's, and refuses another view", async () => {
    const app = testApp();
    const tagsOf = (body: { paths: Record<string, Record<string, { tags?: string[] }>> }) =>
      new Set(Object.values(body.paths).flatMap((item) => Object.values(item).flatMap((operation) => operation.tags?.slice(0, 1) ?? [])));
    const operators = await request(app).get('/openapi.json').query({ view: 'operators' }).expect(200);
    expect([...tagsOf(operators.body)].sort()).toEqual(['Admin', 'Operator console']);
    const clients = await request(app).get('/openapi.json').query({ view: 'clients' }).expect(200);
    expect(tagsOf(clients.body).has('Admin')).toBe(false);
    expect(tagsOf(clients.body).has('OAuth 2')).toBe(true);
    expect(operators.body.components).toEqual(clients.body.components);
    await request(app).get('/openapi.json').query({ view: 'everything' }).expect(400);
    const page = await request(app).get('/docs').query({ view: 'operators' }).expect(200);
    expect(page.text).toContain('data-view="operators"');
    await request(app).get('/docs').query({ view: 'nope' }).expect(400);
  });

  it('is rendered at /docs, every operation included', async () => {
    const res = await request(testApp())
      .get('/docs')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    for (const route of documentedRoutes()) {
      const [method, path] = route.split(' ');
      expect(res.text).toContain(`${method} ${path.replaceAll('&', '&amp;')}`);
    }
  });

  it("serves Swagger UI's two files and its settings from this server, and nothing else of the package", async () => {
    const app = testApp();
    const script = await request(app).get('/docs/assets/swagger-ui-bundle.js').expect(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=86400');
    await request(app)
      .get('/docs/assets/swagger-ui.css')
      .expect(200)
      .expect('Content-Type', /text\/css/);
    const settings = await request(app).get('/docs/assets/init.js').expect(200);
    expect(settings.text).toContain("url: '/openapi.json?view='");
    expect(settings.text).toContain('validatorUrl: null');
    for (const other of ['package.json', 'index.html', '..%2Fpackage.json', 'swagger-ui-bundle.js.map']) {
      await request(app).get(`/docs/assets/${other}`).expect(404);
    }
  });

  it("serves the Authorize dialog's landing page, which the settings name and whose script the policy allows", async () => {
    const app = testApp();
    const page = await request(app)
      .get('/docs/assets/oauth2-redirect.html')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    expect(page.text).toContain('<script src="oauth2-redirect.js"></script>');
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    await request(app)
      .get('/docs/assets/oauth2-redirect.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
    const settings = await request(app).get('/docs/assets/init.js').expect(200);
    expect(settings.text).toContain("oauth2RedirectUrl: window.location.origin + '/docs/assets/oauth2-redirect.html'");
    expect(settings.text).toContain('usePkceWithAuthorizationCodeGrant: true');
  });

  it('gives the reference page a policy that allows scripts and styles from this origin only, nothing inline', async () => {
    const res = await request(testApp()).get('/docs').expect(200);
    const policy = String(res.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(res.text).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
  });

  it('tells a conforming response from one that is not', () => {
    expect(
      responseProblem('GET', '/users/abc', 200, 'application/json', JSON.stringify({ _id: 'abc', permissionFlags: 1, __v: 0 })),
    ).toBeNull();
    expect(
      responseProblem(
        'GET',
        '/users/abc',
        200,
        'application/json',
        JSON.stringify({ _id: 'abc', password: 'x', permissionFlags: 1, __v: 0 }),
      ),
    ).toMatch(/additional/);
    expect(responseProblem('GET', '/users/abc', 418, 'application/json', '{}')).toMatch(/status not documented/);
    expect(responseProblem('GET', '/hello', 200, 'application/json', '"hello!"')).toMatch(/content type/);
    expect(responseProblem('PUT', '/hello', 200, 'text/plain', 'x')).toMatch(/no such operation/);
  });
});
