// GET /openapi.json (the document) and GET /docs (Swagger UI over it, with its files).
import { jsonRefusals } from '../common/refusals';
import { readQuery } from '../common/request-fields';
import { SCRIPT_CONTENT_TYPE, STYLESHEET_CONTENT_TYPE } from '../common/content-types';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import { docsPage, DOCS_INIT_SCRIPT, DOCS_STYLESHEET } from './docs.page';
import { DOCS_VIEWS, documentView, openApiDocument, VIEW_QUERY, type DocsView } from './openapi.document';
import { SWAGGER_UI_FILES } from './openapi.kit';
import { HTML_CONTENT_TYPE } from '../web/html';
import { pageRefusals } from '../web/layout';

const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSET_MAX_AGE_MS = 24 * 3600_000;

/**
 * The reference page runs Swagger UI's script and its own settings from this origin and fetches the
 * document from here; nothing inline (Swagger UI sets styles through the DOM, which the policy allows).
 */
function docsPolicy(res: Response): Response {
  return res.set(
    'Content-Security-Policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
      "font-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
}

export function createOpenApiRouter(): Router {
  const router = Router();
  const views = Object.fromEntries(
    (Object.keys(DOCS_VIEWS) as DocsView[]).map((view) => [view, { document: documentView(view), page: docsPage(view) }]),
  ) as Record<DocsView, { document: unknown; page: string }>;
  // Another view is a refusal: JSON `{ error }` for the document, a page for the reference.
  router.get(
    '/openapi.json',
    (req: Request, res: Response) => {
      const { view } = readQuery(VIEW_QUERY, req);
      res.json(view ? views[view].document : openApiDocument);
    },
    jsonRefusals,
  );
  router.get(
    '/docs',
    (req: Request, res: Response) => {
      const { view } = readQuery(VIEW_QUERY, req);
      docsPolicy(res)
        .type(HTML_CONTENT_TYPE)
        .send(views[view ?? 'clients'].page);
    },
    pageRefusals,
  );
  router.get('/docs/assets/docs.css', (_req, res) => {
    res.type(STYLESHEET_CONTENT_TYPE).set('Cache-Control', 'no-cache').send(DOCS_STYLESHEET);
  });
  router.get('/docs/assets/init.js', (_req, res) => {
    res.type(SCRIPT_CONTENT_TYPE).set('Cache-Control', 'no-cache').send(DOCS_INIT_SCRIPT);
  });
  router.get('/docs/assets/:file', (req, res, next) => {
    if (!(SWAGGER_UI_FILES as readonly string[]).includes(req.params.file)) return next();
    // The Authorize dialog's landing page runs its script from here, as the reference page does.
    if (req.params.file.endsWith('.html')) docsPolicy(res);
    res.sendFile(req.params.file, { root: SWAGGER_UI_DIR, maxAge: ASSET_MAX_AGE_MS });
  });
  return router;
}
