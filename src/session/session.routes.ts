// Browser sign-in: GET/POST /login, POST /logout and GET /home, on top of the session middleware.
import express, { Router, type RequestHandler } from 'express';
import { requireCsrf } from './csrf';
import * as sessionController from './session.controller';

export const formBody = express.urlencoded({ extended: false, limit: '100kb' });

export function createSessionRouter(sessions: RequestHandler): Router {
  const router = Router();
  router.get('/login', sessions, sessionController.showLogin);
  router.post('/login', sessions, formBody, requireCsrf, sessionController.login);
  router.post('/logout', sessions, formBody, requireCsrf, sessionController.logout);
  router.get('/home', sessions, sessionController.home);
  return router;
}
