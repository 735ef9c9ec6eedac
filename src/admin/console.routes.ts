// The operator's console under /admin (the admin API under /admin/api is admin.routes.ts).
import { pageRefusals } from '../web/layout';
import { Router, type RequestHandler } from 'express';
import type { Config } from '../config';
import { requireSession } from '../session/session.middleware';
import type { Journey } from '../sign-in/journey.types';
import type { Csrf } from '../web/csrf';
import { pageFormBody } from '../web/form-body';
import { noStore } from '../common/no-store';
import type { Administration } from './admin.service';
import { createConsoleController } from './console.controller';

export function createConsoleRouter(
  sessions: RequestHandler,
  deps: { config: Config; csrf: Csrf; journey: Journey; admin: Administration },
): Router {
  const pages = createConsoleController(deps);
  // Every answer of the console is no-store, its refusals (403, 404, a form's CSRF) included.
  const neverStored: RequestHandler = (_req, res, next) => {
    noStore(res);
    next();
  };
  const page = [neverStored, sessions, requireSession(), pages.access];
  const form = [neverStored, sessions, pageFormBody, requireSession('sign-in', '/admin/people'), deps.csrf.require, pages.access];
  const router = Router();
  router.get('/admin', ...page, pages.home);
  router.get('/admin/people', ...page, pages.people);
  router.get('/admin/people/:id', ...page, pages.person);
  router.post('/admin/people/:id/sessions/end', ...form, pages.endSessions);
  router.post('/admin/people/:id/sessions/:handle/end', ...form, pages.endSession);
  router.post('/admin/people/:id/factors/reset', ...form, pages.resetFactors);
  router.post('/admin/people/:id/disable', ...form, pages.disable);
  router.post('/admin/people/:id/enable', ...form, pages.enable);
  router.post('/admin/people/:id/applications/:clientId/revoke', ...form, pages.revokeApplication);
  router.post('/admin/people/:id/reset-link', ...form, pages.sendResetLink);
  router.post('/admin/people/:id/delete', ...form, pages.remove);
  router.post('/admin/people/:id/unlock', ...form, pages.unlock);
  router.post('/admin/people/:id/roles', ...form, pages.giveRole);
  router.post('/admin/people/:id/roles/:name/take', ...form, pages.takeRole);
  router.get('/admin/applications', ...page, pages.applications);
  router
    .route('/admin/applications/new')
    .get(...page, pages.newApplication)
    .post(...form, pages.register, pages.registrationRefused);
  router
    .route('/admin/applications/:clientId')
    .get(...page, pages.application)
    .post(...form, pages.changeApplication, pages.changeRefused);
  router.post('/admin/applications/:clientId/secret', ...form, pages.rotateSecret);
  router.post('/admin/applications/:clientId/delete', ...form, pages.removeApplication);
  router.get('/admin/agents', ...page, pages.agents);
  router.post('/admin/agents/hosts', ...form, pages.ruleHost, pages.agentsRefused);
  router.post('/admin/agents/hosts/forget', ...form, pages.forgetHost);
  router.post('/admin/agents/exchange', ...form, pages.setExchangePolicy, pages.agentsRefused);
  router.post('/admin/agents/exchange/delete', ...form, pages.removeExchangePolicy);
  router.get('/admin/keys', ...page, pages.keys);
  router.post('/admin/keys/rotate', ...form, pages.rotateKeys);
  router.get('/admin/events', ...page, pages.events);
  router.use(pageRefusals);
  return router;
}
