// Browser sign-in: GET/POST /login, POST /logout and GET /home, on top of the session middleware.
import express, { Router, type RequestHandler } from 'express';
import { limitsFor, SIGN_IN_RULES } from '../common/rate-limit';
import type { Config } from '../config';
import { pageError } from './pages';
import { requireCsrf } from './csrf';
import * as sessionController from './session.controller';

export const formBody = express.urlencoded({ extended: false, limit: '100kb' });

const tooManyAttempts = pageError(429, 'Too many sign-in attempts', 'Too many attempts from here or for this account. Please wait a few minutes and try again.');

export function createSessionRouter(sessions: RequestHandler, config: Config): Router {
  const router = Router();
  router.get('/login', sessions, sessionController.showLogin);
  router.post('/login', sessions, formBody, ...limitsFor(config, SIGN_IN_RULES, tooManyAttempts), requireCsrf, sessionController.login);
  router.post('/logout', sessions, formBody, requireCsrf, sessionController.logout);
  router.get('/home', sessions, sessionController.home);
  return router;
}
