// GET /docs: Swagger UI (from the swagger-ui-dist package, served by this server: no CDN) over
// /openapi.json, and for a browser without JavaScript the operations as a plain list.
import { html } from '../web/html';
import { DOCS_VIEWS, openApiDocument, type DocsView } from './openapi.document';
import { DOCS_OAUTH2_REDIRECT_PATH } from './openapi.kit';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** The settings Swagger UI starts with: a file of its own, since the page's policy allows no inline script. */
export const DOCS_INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  // The page's view (docs/architecture.md): the clients' and people's operations, or the operators'.
  url: '/openapi.json?view=' + (document.documentElement.dataset.view || 'clients'),
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayOperationId: true,
  displayRequestDuration: true,
  filter: true,
  persistAuthorization: false,
  // The document would otherwise be sent to an online validator.
  validatorUrl: null,
  // Where the Authorize dialog's authorization code flow comes back (registered on the demo client).
  oauth2RedirectUrl: window.location.origin + '${DOCS_OAUTH2_REDIRECT_PATH}',
});
window.ui.initOAuth({ usePkceWithAuthorizationCodeGrant: true, scopes: 'openid profile email read' });
`;

/**
 * Over Swagger UI's stylesheet: text on its coloured badges and buttons dark or light enough for
 * WCAG AA contrast, and on a phone no operation id squeezed into a column one letter wide.
 */
export const DOCS_STYLESHEET = `.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1c5f9e; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #17724a; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b01c1c; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0b6b57; }
.swagger-ui .info .title small pre { background: #4a505b; }
.swagger-ui .info .title small.version-stamp pre { background: #3f6500; }
.swagger-ui .info .url, .swagger-ui .info a { color: #1c5f9e; }
.swagger-ui .btn.authorize { color: #17724a; border-color: #17724a; }
.docs-views { font-family: sans-serif; max-width: 1460px; margin: 1rem auto 0; padding: 0 20px; }
.docs-views a { color: #1c5f9e; }
.swagger-ui .btn.authorize svg { fill: #17724a; }
@media (max-width: 600px) {
  .swagger-ui .opblock .opblock-summary .opblock-summary-operation-id { display: none; }
  .swagger-ui .opblock-tag small { display: none; }
}
`;

function operationList() {
  return Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method) => {
      const operation = (item as Record<string, { summary?: string }>)[method];
      return html`<li><code>${method.toUpperCase()} ${path}</code>: ${operation.summary ?? ''}</li>`;
    }),
  );
}

export function docsPage(view: DocsView): string {
  const { title } = openApiDocument.info;
  const views = (Object.keys(DOCS_VIEWS) as DocsView[]).map((name) =>
    name === view
      ? html`<strong aria-current="page">${DOCS_VIEWS[name].title}</strong>`
      : html`<a href="/docs${name === 'clients' ? '' : `?view=${name}`}">${DOCS_VIEWS[name].title}</a>`,
  );
  return html`<!doctype html>
<html lang="en" data-view="${view}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · ${title}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/docs.css">
</head>
<body>
<nav class="docs-views" aria-label="Reference views">${views.map((link, i) => html`${i ? ' · ' : ''}${link}`)}</nav>
<div id="swagger-ui"></div>
<noscript>
<h1>${title}: API reference</h1>
<p>The interactive reference needs JavaScript. The document itself: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${openApiDocument.openapi}).</p>
<ul>${operationList()}</ul>
</noscript>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>`.value;
}
