// GET /: what runs here and where to go next (sign in, the API reference, the OAuth metadata, health).
import { Router } from 'express';
import { HTML_CONTENT_TYPE, html } from '../web/html';
import { layout } from '../web/layout';

const LINKS: [string, string, string][] = [
  ['/login', 'Sign in', 'the browser sign-in page'],
  ['/docs', 'API reference', 'every endpoint, rendered from the OpenAPI document'],
  ['/openapi.json', 'OpenAPI 3.1 document', 'for client generators and tools'],
  ['/.well-known/openid-configuration', 'OpenID Connect and OAuth 2 metadata', 'discovery: endpoints, grants, scopes, keys'],
  ['/healthz', 'Health', 'liveness; /readyz says whether the database answers'],
];

/** Outside production: the page that plays a client, for trying the flows (npm run seed -- --demo). */
const DEMO_LINK: [string, string, string] = [
  '/oauth/callback-debug',
  'Try the OAuth flows',
  'in the browser, with the demo client (make it first with npm run seed -- --demo)',
];

function landingPage(links: [string, string, string][]): string {
  return layout(
    'REST API server',
    html`<h1>REST API server</h1>
<p>User records with JWT login, an OAuth 2 authorization server, GitHub sign-in, a product catalogue and a weather aggregator.</p>
<ul>${links.map(([href, name, what]) => html`<li><a href="${href}">${name}</a>: ${what}</li>`)}</ul>`,
  );
}

export function createLandingRouter(isProduction: boolean): Router {
  const page = landingPage(isProduction ? LINKS : [...LINKS, DEMO_LINK]);
  const router = Router();
  router.get('/', (_req, res) => {
    res.type(HTML_CONTENT_TYPE).send(page);
  });
  return router;
}
