import type { Request, Response } from 'express';
import * as authService from '../auth/auth.service';
import { MAX_PASSWORD_LENGTH } from '../common/validation';
import { csrfToken } from './csrf';
import { homePage, loginPage } from './pages';
import * as sessionService from './session.service';

const HTML = 'text/html; charset=utf-8';

export async function showLogin(req: Request, res: Response): Promise<void> {
  const returnTo = sessionService.safeReturnTo(req.query.return_to);
  if (await sessionService.currentUser(req)) {
    res.redirect(302, returnTo);
    return;
  }
  res.type(HTML).send(loginPage({ csrfToken: csrfToken(req), returnTo }));
}

export async function login(req: Request, res: Response): Promise<void> {
  const { email, password, remember } = req.body as Record<string, unknown>;
  const returnTo = sessionService.safeReturnTo(req.body.return_to);
  const typedEmail = typeof email === 'string' ? email.trim().toLowerCase() : '';
  const userId =
    typedEmail && typeof password === 'string' && password.length <= MAX_PASSWORD_LENGTH
      ? await authService.verifyCredentials(typedEmail, password)
      : null;
  if (!userId) {
    res
      .status(401)
      .type(HTML)
      .send(loginPage({ csrfToken: csrfToken(req), returnTo, email: typedEmail.slice(0, 254), error: 'Invalid email or password.' }));
    return;
  }
  await sessionService.signIn(req, userId, remember === '1' || remember === 'on');
  res.redirect(303, returnTo);
}

export async function logout(req: Request, res: Response): Promise<void> {
  await sessionService.signOut(req);
  res.clearCookie('sid', { path: '/' });
  res.redirect(303, '/login');
}

export async function home(req: Request, res: Response): Promise<void> {
  const user = await sessionService.currentUser(req);
  if (!user) {
    res.redirect(302, '/login');
    return;
  }
  res.type(HTML).send(homePage({ name: sessionService.displayName(user), email: user.email, avatarUrl: user.avatarUrl, csrfToken: csrfToken(req) }));
}
