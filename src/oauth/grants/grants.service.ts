// Connected applications: the consent a person gave each client, remembered so that a later
// authorization for the same or narrower scopes skips the consent page, listed on /home and in the
// API, and revocable, which ends every token of that person for that client at once.
import * as clientsService from '../clients/clients.service';
import * as tokensService from '../tokens/tokens.service';
import * as grantsDao from './grants.dao';
import { consentsForgotten, type ConsentStore } from './grants.store';
import { LIMITS } from '../protocol';

export interface ConnectedApplication {
  client_id: string;
  name: string;
  website?: string;
  scope: string[];
  first_granted_at: string;
  last_used_at: string;
  /** OIDC Core §4: the client takes sign-ins started here (the Open link of /home and /account). */
  initiate_login_uri?: string;
}

export { cachedConsents, databaseConsents, type ConsentStore } from './grants.store';
export type { ClientRegistry } from '../clients/clients.service';

/** Keeps what the person approved (the store knows it from now on). */
export async function remember(consents: ConsentStore, userId: string, clientId: string, scope: readonly string[]): Promise<void> {
  await consents.add(userId, clientId, scope, new Date());
}

/** True when the person already approved every scope asked for. */
export async function covers(consents: ConsentStore, userId: string, clientId: string, scope: readonly string[]): Promise<boolean> {
  const approved = await consents.approved(userId, clientId);
  return approved !== null && scope.every((wanted) => approved.includes(wanted));
}

/** A token was issued from the grant: it is in use. */
export function touch(userId: string, clientId: string): Promise<void> {
  return grantsDao.touch(userId, clientId, new Date());
}

/** One page (`page` from 0) of the applications the person connected, oldest first. */
export async function listConnected(
  clients: clientsService.ClientRegistry,
  userId: string,
  page = 0,
  limit: number = LIMITS.pageSize,
): Promise<ConnectedApplication[]> {
  const grants = await grantsDao.listForUser(userId, page, limit);
  const found = await Promise.all(grants.map((grant) => clients.find(grant.clientId)));
  return grants.flatMap((grant, index) => {
    const client = found[index];
    if (!client) return [];
    return [
      {
        client_id: client._id,
        name: client.name,
        ...(client.website ? { website: client.website } : {}),
        scope: grant.scope,
        first_granted_at: grant.firstGrantedAt.toISOString(),
        last_used_at: grant.lastUsedAt.toISOString(),
        ...(client.metadata?.initiate_login_uri ? { initiate_login_uri: client.metadata.initiate_login_uri } : {}),
      },
    ];
  });
}

/** Who has granted the client something: a page of grants in person order after `afterUserId`. */
export async function grantsOfClient(clientId: string, afterUserId: string | undefined, limit: number) {
  const grants = await grantsDao.pageForClient(clientId, afterUserId, limit);
  return grants.map((grant) => ({
    person_id: grant.userId,
    scope: grant.scope,
    first_granted_at: grant.firstGrantedAt.toISOString(),
    last_used_at: grant.lastUsedAt.toISOString(),
  }));
}

/**
 * Third-party-initiated login (OIDC Core §4): where to send the person to sign in to a client they
 * connected, with this issuer as `iss`; null when they did not connect it or it takes no such sign-in.
 */
export async function loginInitiation(
  clients: clientsService.ClientRegistry,
  userId: string,
  clientId: string,
  issuer: string,
): Promise<string | null> {
  const [grant, client] = await Promise.all([grantsDao.find(userId, clientId), clients.find(clientId)]);
  const initiate = client?.metadata?.initiate_login_uri;
  if (!grant || !initiate) return null;
  const url = new URL(initiate);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

/** Forgets the consent and ends every token and code of the person for the client; false when there was no consent. */
export type TokenLifetimes = tokensService.TokenLifetimes;

export async function revoke(userId: string, clientId: string, lifetimes: TokenLifetimes): Promise<boolean> {
  const removed = await grantsDao.remove(userId, clientId);
  if (removed) await consentsForgotten.raise();
  await tokensService.endForUserAndClient(userId, clientId, lifetimes);
  return removed;
}

/** A deleted account or a new password forgets what the person approved. */
export async function forgetUser(userId: string): Promise<void> {
  await grantsDao.removeForUser(userId);
  await consentsForgotten.raise();
}

/** A deleted client is forgotten by everyone who approved it. */
export async function forgetClient(clientId: string): Promise<void> {
  await grantsDao.removeForClient(clientId);
  await consentsForgotten.raise();
}

/** How many people granted the client something (the console's document clients). */
export const peopleOfClient = (clientId: string): Promise<number> => grantsDao.countForClient(clientId);
