import { createHash, randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import * as clientsService from '../../src/oauth/clients/clients.service';
import type { GrantType } from '../../src/oauth/protocol';
import { createUser } from './factories';

export const REDIRECT_URI = 'https://client.example.com/callback';

export async function registerClient(overrides: Partial<clientsService.ClientRegistration> & { ownerId?: string } = {}) {
  const { ownerId, ...registration } = overrides;
  const owner = ownerId ?? (await createUser()).id;
  return clientsService.register(owner, {
    name: 'Example App',
    website: 'https://client.example.com',
    redirect_uri: REDIRECT_URI,
    ...registration,
  });
}

export const ALL_GRANTS: GrantType[] = ['authorization_code', 'implicit', 'refresh_token', 'password', 'client_credentials'];

/** The value of the hidden _csrf field in a page. */
export function csrfFrom(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF field in the page');
  return match[1];
}

/** A supertest agent (keeps cookies) signed in through the real /login form. */
export async function signedInAgent<U extends { email: string; password: string }>(app: Express, user?: U) {
  const account = user ?? ((await createUser()) as unknown as U);
  const agent = request.agent(app);
  const page = await agent.get('/login').expect(200);
  await agent
    .post('/login')
    .type('form')
    .send({ _csrf: csrfFrom(page.text), email: account.email, password: account.password })
    .expect(303);
  return { agent, user: account };
}

/** The sign-out form of /home, as the person submits it. */
export async function signOutOf(agent: ReturnType<typeof request.agent>): Promise<void> {
  const home = await agent.get('/home').expect(200);
  await agent
    .post('/logout')
    .type('form')
    .send({ _csrf: csrfFrom(home.text) })
    .expect(303);
}

export function pkcePair(method: 'S256' | 'plain' = 'S256') {
  const verifier = randomBytes(48).toString('base64url');
  const challenge = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return { verifier, challenge, method };
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
/** An attribute value as the browser reads it (web/html.ts escapes these five). */
export const unescapeHtml = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]);

/** Walks the consent page and approves; returns the redirect Location. */
export async function approve(
  agent: ReturnType<typeof request.agent>,
  query: Record<string, string>,
  decision: 'approve' | 'deny' = 'approve',
  path = '/oauth/authorize',
): Promise<URL> {
  const res = await decided(agent, query, decision, path);
  expect(res.status).toBe(302);
  return new URL(res.headers.location);
}

/** The consent page of the request, decided through its form: the answer as it comes (a redirect, or a form_post page). */
export async function decided(
  agent: ReturnType<typeof request.agent>,
  query: Record<string, string>,
  decision: 'approve' | 'deny' = 'approve',
  path = '/oauth/authorize',
): Promise<request.Response> {
  const consent = await agent.get(path).query(query).expect(200);
  const fields = Object.fromEntries(
    [...consent.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], unescapeHtml(m[2])]),
  );
  return agent
    .post(path)
    .type('form')
    .send({ ...fields, decision });
}

/** Signs in, approves and returns an authorization code for the client. */
export async function authorizationCode(
  app: Express,
  client: { client_id: string },
  extra: Record<string, string> = {},
  account?: Awaited<ReturnType<typeof createUser>>,
) {
  const { agent, user } = await signedInAgent(app, account);
  const location = await approve(agent, { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, ...extra });
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location.href}`);
  return { code, user, agent };
}

type RegisteredClient = { client_id: string; client_secret: string };

/** client_secret_post: the client's credentials among the body's parameters. */
export const clientSecretPost = (client: RegisteredClient) => ({ client_id: client.client_id, client_secret: client.client_secret });

/** The parameters that exchange a code for tokens, with the client's credentials in the body. */
export const codeExchange = (client: RegisteredClient, code: string) => ({
  grant_type: 'authorization_code',
  ...clientSecretPost(client),
  code,
  redirect_uri: REDIRECT_URI,
});

export const basicAuth = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** A client allowed the password grant (and the others listed), a user, and the tokens of a password grant. */
export async function passwordGrant(app: Express, options: { scope?: string; grants?: GrantType[] } = {}) {
  const client = await registerClient({ grants: options.grants ?? ['password', 'refresh_token'] });
  const user = await createUser();
  const res = await request(app)
    .post('/oauth/token')
    .type('form')
    .send({
      grant_type: 'password',
      ...clientSecretPost(client),
      username: user.email,
      password: user.password,
      ...(options.scope ? { scope: options.scope } : {}),
    })
    .expect(200);
  return { client, user, tokens: res.body as { access_token: string; refresh_token: string } };
}

/** A refresh grant at POST /oauth/token, the client's credentials in the body. */
export const refreshWith = (app: Express, client: RegisteredClient, refreshToken: string) =>
  request(app)
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: 'refresh_token', refresh_token: refreshToken, ...clientSecretPost(client) });

/** An access token with the admin scope, from a new client the operator allowed (`--operator yes`). */
export async function operatorToken(app: Express): Promise<string> {
  const client = await registerClient({ grants: ['client_credentials'] });
  await clientsService.update(client.client_id, { operator_access: true });
  const res = await request(app)
    .post('/oauth/token')
    .auth(client.client_id, client.client_secret)
    .type('form')
    .send({ grant_type: 'client_credentials', scope: 'admin' })
    .expect(200);
  return res.body.access_token as string;
}
