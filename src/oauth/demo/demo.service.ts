// The demo (development only): a user and a well-known client to try every flow with in a browser,
// and the token exchange that /oauth/callback-debug performs the way a client application would.
import axios from 'axios';
import jwt from 'jsonwebtoken';
import * as usersService from '../../users/users.service';
import * as clientsService from '../clients/clients.service';
import { DOCS_OAUTH2_REDIRECT_PATH } from '../../openapi/openapi.kit';
import { GRANT_TYPES, LIMITS } from '../protocol';

export const DEMO_USER = { email: 'demo@example.com', password: 'demo-password' } as const;
// Published on purpose: the demo client exists only in development databases.
export const DEMO_CLIENT = { id: 'demo-client', secret: 'demo-client-secret' } as const;
export const CALLBACK_DEBUG_PATH = '/oauth/callback-debug';
const EXCHANGE_TIMEOUT_MS = 5000;

/**
 * Adds the demo user (unless it exists) and creates or resets the demo client; safe to repeat. The
 * redirect URIs it had are kept beside this address's: a seed run from a terminal that lost the
 * server's PORT must not take the running server's own callback away (issue 50, finding 3).
 */
export async function seedDemo(publicUrl: string): Promise<{ userCreated: boolean }> {
  const userCreated = !(await usersService.findByEmail(DEMO_USER.email));
  if (userCreated) await usersService.create({ ...DEMO_USER, firstName: 'Demo', lastName: 'User' });
  const before = await clientsService.registeredClients.find(DEMO_CLIENT.id);
  await clientsService.put(DEMO_CLIENT.id, DEMO_CLIENT.secret, {
    name: 'Demo client',
    website: publicUrl,
    redirect_uri: `${publicUrl}${CALLBACK_DEBUG_PATH}`,
    grants: [...GRANT_TYPES],
  });
  await followServer(publicUrl, before ? clientsService.redirectUrisOf(before) : []);
  return { userCreated };
}

/**
 * At a development server's start: when the demo client exists, its callback page on this server's
 * address (PUBLIC_URL, or localhost and PORT) is one of its redirect URIs, whatever port the seed ran
 * with. The newest address goes first; the oldest drop off past LIMITS.urisPerClient. True when it changed.
 */
export async function followServer(publicUrl: string, kept: readonly string[] = []): Promise<boolean> {
  const client = await clientsService.registeredClients.find(DEMO_CLIENT.id);
  // The callback page, and the API reference's Authorize dialog.
  const wanted = [`${publicUrl}${CALLBACK_DEBUG_PATH}`, `${publicUrl}${DOCS_OAUTH2_REDIRECT_PATH}`];
  const current = client ? clientsService.redirectUrisOf(client) : [];
  const missing = client ? [...wanted, ...kept].filter((uri) => !current.includes(uri)) : [];
  if (!client || missing.length === 0) return false;
  const others = [...current, ...kept].filter((uri, i, all) => !wanted.includes(uri) && all.indexOf(uri) === i);
  const redirectUris = [...wanted, ...others].slice(0, LIMITS.urisPerClient);
  await clientsService.update(DEMO_CLIENT.id, { redirect_uris: redirectUris });
  return true;
}

export interface CodeExchangeForm {
  code: string;
  redirect_uri: string;
  client_id: string;
  client_secret: string;
  code_verifier: string;
}

export interface ExchangeResult {
  /** The form sent, the client secret masked. */
  sent: Record<string, string>;
  status: number;
  body: unknown;
  /** The ID token's claims, decoded but not verified (a client verifies them against /oauth/jwks). */
  idTokenClaims: unknown;
}

/** Sends the authorization code to this server's token endpoint, as a client application would. */
export async function exchangeCode(tokenUrl: string, form: CodeExchangeForm): Promise<ExchangeResult> {
  const fields: Record<string, string> = {
    grant_type: 'authorization_code',
    code: form.code,
    redirect_uri: form.redirect_uri,
    client_id: form.client_id,
  };
  if (form.client_secret) fields.client_secret = form.client_secret;
  if (form.code_verifier) fields.code_verifier = form.code_verifier;
  const response = await axios.post<unknown>(tokenUrl, new URLSearchParams(fields), {
    timeout: EXCHANGE_TIMEOUT_MS,
    validateStatus: () => true,
    responseType: 'json',
  });
  const body = response.data;
  const idToken = typeof body === 'object' && body !== null && 'id_token' in body ? body.id_token : undefined;
  return {
    sent: { ...fields, ...(fields.client_secret && { client_secret: '(hidden)' }) },
    status: response.status,
    body,
    idTokenClaims: typeof idToken === 'string' ? jwt.decode(idToken) : null,
  };
}
