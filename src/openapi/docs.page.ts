// GET /docs: Swagger UI (from the swagger-ui-dist package, served by this server: no CDN) over
// /openapi.json, and for a browser without JavaScript the operations as a plain list.
import { html } from '../web/html';
import { openApiDocument } from './openapi.document';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/** The settings Swagger UI starts with: a file of its own, since the page's policy allows no inline script. */
export const DOCS_INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
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
});
`;

function operationList() {
  return Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method) => {
      const operation = (item as Record<string, { summary?: string }>)[method];
      return html`<li><code>${method.toUpperCase()} ${path}</code>: ${operation.summary ?? ''}</li>`;
    }),
  );
}

export function docsPage(): string {
  const { title } = openApiDocument.info;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · ${title}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
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
