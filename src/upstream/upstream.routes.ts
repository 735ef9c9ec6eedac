// Sign-in through another provider (docs/upstream.md), inside the session-enabled routes: GitHub at
// GET /auth/:provider (seed 001), the OpenID providers under /auth/upstream/.
import { pageRefusals } from '../web/layout';
import { Router, type RequestHandler } from 'express';
import { requireSession } from '../session/session.middleware';
import type { Csrf } from '../web/csrf';
import { pageFormBody } from '../web/form-body';
import { createLinkController } from './link.controller';
import { createUpstreamController, type UpstreamDeps } from './upstream.controller';

export function createUpstreamRouter(sessions: RequestHandler, csrf: Csrf, deps: Omit<UpstreamDeps, 'csrf'>): Router {
  const upstream = createUpstreamController({ ...deps, csrf });
  const link = createLinkController({ ...deps, csrf });
  const signedInForm = [sessions, pageFormBody, requireSession('sign-in', '/account'), csrf.require];
  const router = Router();
  router.get('/auth/upstream/:id', sessions, upstream.start, upstream.failures);
  router.get('/auth/:provider', sessions, upstream.provider, upstream.gitHubFailures);
  router.get('/auth/upstream/:id/callback', sessions, upstream.callback, upstream.failures);
  router.get('/login/link', sessions, link.showLink);
  router.post('/login/link', sessions, pageFormBody, csrf.require, link.link);
  router.post('/login/link/cancel', sessions, pageFormBody, csrf.require, link.cancelLink);
  router.post('/account/providers/:id/link', ...signedInForm, upstream.startLink, upstream.failures);
  router.post('/account/providers/:id/unlink', ...signedInForm, upstream.unlink);
  router.use(pageRefusals);
  return router;
}
