// GET /openapi.json (the document) and GET /docs (the same, rendered as a page without scripts).
import { Router } from 'express';
import { html } from '../web/html';
import { layout } from '../web/layout';
import { openApiDocument } from './openapi.document';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface Operation {
  summary?: string;
  tags?: readonly string[];
  responses: Record<string, { description: string }>;
}

function renderDocs(): string {
  const operations = Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method) => ({
      path,
      method,
      operation: (item as unknown as Record<string, Operation>)[method],
    })),
  );
  const tags = openApiDocument.tags.map((tag) => tag.name);
  return layout(
    'API reference',
    html`<h1>${openApiDocument.info.title}</h1>
<p>${openApiDocument.info.description}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${openApiDocument.openapi}).</p>
${tags.map(
  (tag) => html`<h2>${tag}</h2>
${operations
  .filter(({ operation }) => operation.tags?.includes(tag))
  .map(
    ({ path, method, operation }) => html`<h3><code>${method.toUpperCase()} ${path}</code></h3>
<p>${operation.summary ?? ''}</p>
<ul>${Object.entries(operation.responses).map(([status, response]) => html`<li><strong>${status}</strong>: ${response.description}</li>`)}</ul>`,
  )}`,
)}`,
    { wide: true },
  );
}

export function createOpenApiRouter(): Router {
  const router = Router();
  const docs = renderDocs();
  router.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  router.get('/docs', (_req, res) => {
    res.type('text/html; charset=utf-8').send(docs);
  });
  return router;
}
