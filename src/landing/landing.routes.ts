// GET /: what runs here and where to go next (sign in, the API reference, the OAuth metadata, health).
import { Router } from 'express';
import { html } from '../web/html';
import { layout } from '../web/layout';

const LINKS: [string, string, string][] = [
  ['/login', 'Sign in', 'the browser sign-in page (and GitHub sign-in)'],
  ['/docs', 'API reference', 'every endpoint, rendered from the OpenAPI document'],
  ['/openapi.json', 'OpenAPI 3.1 document', 'for client generators and tools'],
  ['/.well-known/openid-configuration', 'OpenID Connect and OAuth 2 metadata', 'discovery: endpoints, grants, scopes, keys'],
  ['/healthz', 'Health', 'liveness; /readyz says whether the database answers'],
];

function landingPage(): string {
  return layout(
    'REST API server',
    html`<h1>REST API server</h1>
<p>User records with JWT login, an OAuth 2 authorization server, GitHub sign-in, a product catalogue and a weather aggregator.</p>
<ul>${LINKS.map(([href, name, what]) => html`<li><a href="${href}">${name}</a>: ${what}</li>`)}</ul>`,
  );
}

export function createLandingRouter(): Router {
  const page = landingPage();
  const router = Router();
  router.get('/', (_req, res) => {
    res.type('text/html; charset=utf-8').send(page);
  });
  return router;
}
