// Driving the account pages as a browser would (supertest agents keep the cookies): open a page,
// post its form with the page's CSRF token; and an app whose mail goes to an SMTP sink on loopback.
import type { Express } from 'express';
import request from 'supertest';
import { csrfFrom } from './oauth';

export type Agent = ReturnType<typeof request.agent>;

/** Opens `pagePath` and posts `fields` to `action` with that page's CSRF token. */
export async function postForm(agent: Agent, pagePath: string, action: string, fields: Record<string, string>) {
  const page = await agent.get(pagePath);
  return agent
    .post(action)
    .type('form')
    .send({ _csrf: csrfFrom(page.text), ...fields });
}

/** Signs up through /signup; returns the agent, signed in. */
export async function signUpAgent(app: Express, fields: { email: string; password: string; firstName?: string; lastName?: string }) {
  const agent = request.agent(app);
  const res = await postForm(agent, '/signup', '/signup', { firstName: '', lastName: '', ...fields });
  if (res.status !== 303) throw new Error(`sign-up answered ${res.status}: ${res.text.slice(0, 300)}`);
  return agent;
}

/** A path and query of a mailed link (the app under supertest is reached by path). */
export function pathOf(link: string | undefined): string {
  if (!link) throw new Error('the mail has no link');
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

/** The token of a mailed link. */
export const tokenOf = (link: string | undefined) => new URL(link ?? 'http://x/').searchParams.get('token') ?? '';
