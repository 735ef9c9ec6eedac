// What an operator can do to people, and read of what happened, for both the admin API and the
// console's pages: each change is an event in the person's activity naming who made it.
import type { ActivityKind, ActivityLog, EventFilter } from '../account/activity.service';
import type { Accounts } from '../account/account.service';
import type { Config } from '../config';
import * as factorsService from '../factors/factors.service';
import * as clientsService from '../oauth/clients/clients.service';
import * as registrationService from '../oauth/clients/registration.service';
import * as grantsService from '../oauth/grants/grants.service';
import * as documents from '../oauth/clients/client-documents.service';
import * as exchangeService from '../oauth/exchange/exchange.service';
import * as rolesService from '../oauth/roles/roles.service';
import { keyRingOptions, listPublished, rotate } from '../oauth/oidc/signing-keys.service';
import { forgetFailuresOf } from '../sign-in/sign-in.service';
import type { SessionEndedHook } from '../session/session.middleware';
import * as sessionService from '../session/session.service';
import * as usersService from '../users/users.service';
import type { UserRecord } from '../users/users.types';
import type { Stores } from '../stores';

/** Who acts: an operator's client (`client:<id>`) or an admin person (`person:<id>`), and from where. */
/** The longest value of one of the admin API's query parameters (a search, a cursor, a filter). */
export const MAX_QUERY_LENGTH = 100;

export interface Operator {
  actor: string;
  /** Named in the event's detail: the client id, or the admin's email. */
  name: string;
  address: string;
  clientId?: string;
}

export const personView = (user: UserRecord) => ({
  id: user._id,
  email: user.email ?? null,
  emailVerified: user.emailVerified === true,
  firstName: user.firstName ?? null,
  lastName: user.lastName ?? null,
  roles: usersService.rolesOf(user),
  disabled: user.disabled === true,
});

/** An events cursor: the last event's time and id, opaque to callers. */
export const eventsCursor = (at: Date, id: string): string => Buffer.from(JSON.stringify([at.toISOString(), id])).toString('base64url');

/** The cursor read back; null when it is not one this server made. */
export function readEventsCursor(value: string): EventFilter['after'] | null {
  try {
    const [at, id] = JSON.parse(Buffer.from(value, 'base64url').toString()) as [unknown, unknown];
    const date = new Date(String(at));
    return typeof id === 'string' && typeof at === 'string' && !Number.isNaN(date.getTime()) ? { at: date, id } : null;
  } catch {
    return null;
  }
}

/** A page of applications: `next` is the `after` of the next page. */
/** Whether a client_id names a client: registered here, or a metadata document's address. */
const isClient = async (clientId: string): Promise<boolean> =>
  documents.isDocumentClientId(clientId) || (await clientsService.details(clientId)) !== null;

const paged = <T>(found: T[], limit: number, idOf: (item: T) => string) => {
  const shown = found.slice(0, limit);
  return { shown, next: found.length > limit ? idOf(shown[shown.length - 1]) : null };
};

export function createAdministration(
  config: Config,
  activity: ActivityLog,
  ends: { accessEnded: usersService.AccessEndedHook; sessionEnded: SessionEndedHook; clientRemoved: clientsService.ClientRemovedHook },
  accounts: Pick<Accounts, 'requestReset'>,
  stores: Pick<Stores, 'clients' | 'clientKeySets'>,
) {
  const record = (userId: string | null, kind: ActivityKind, what: string, by: Operator, clientId = by.clientId) =>
    activity.record(userId, kind, { address: by.address, detail: `${what}, by ${by.name}`, actor: by.actor, clientId });

  return {
    /** People whose email or name starts with `q`, in id order; `next` is the `after` of the next page. */
    async people(q: string | undefined, after: string | undefined, limit: number) {
      const found = await usersService.search(q, after, limit + 1);
      const shown = found.slice(0, limit);
      return { people: shown.map(personView), next: found.length > limit ? shown[shown.length - 1]._id : null };
    },

    /** One person with the claims they share and their second factors; null when there is none. */
    async person(id: string) {
      const user = await usersService.findById(id);
      if (!user) return null;
      const factors = await factorsService.secondFactors(user._id);
      return {
        ...personView(user),
        claims: user.claims ?? {},
        factors: { totp: factors?.totp === true, passkeys: factors?.passkeys === true },
      };
    },

    /** The roles an operator can give: admin, then those defined (at most 100), by name. */
    roles: async (): Promise<string[]> => (await rolesService.page(rolesService.ROLE_RULES.max + 1)).roles.map((role) => role.name),

    /** Gives or takes a role (admin like any other); false when there is no such role or person. */
    async setRole(userId: string, role: string, held: boolean, by: Operator): Promise<boolean> {
      if (!(await rolesService.known(role))) return false;
      if (!(await usersService.setRole(userId, role, held))) return false;
      await record(userId, held ? 'role-given' : 'role-taken', role, by);
      return true;
    },

    /** The people these events concern, by id: their email (or their id when they have none, or are gone). */
    async namesOf(ids: (string | undefined)[]): Promise<Map<string, string>> {
      const distinct = [...new Set(ids.filter((id): id is string => id !== undefined))];
      const people = await Promise.all(distinct.map((id) => usersService.findById(id)));
      return new Map(distinct.map((id, i) => [id, people[i]?.email ?? id]));
    },

    /** Who registered the application (a person's id and email), or null for an operator's. */
    async ownerOf(clientId: string): Promise<{ id: string; email: string | null } | null> {
      const client = await stores.clients.find(clientId);
      if (!client?.ownerId) return null;
      const owner = await usersService.findById(client.ownerId);
      return { id: client.ownerId, email: owner?.email ?? null };
    },

    /** Disabling ends every session and token now. */
    async setDisabled(userId: string, disabled: boolean, by: Operator): Promise<void> {
      await usersService.setDisabled(userId, disabled, ends.accessEnded);
      await record(userId, disabled ? 'disabled' : 'enabled', disabled ? 'account disabled' : 'account enabled', by);
    },

    /** Every browser signed out now (applications told by back-channel logout). */
    async endSessions(userId: string, by: Operator): Promise<void> {
      for (const ended of await sessionService.endOtherSessions(userId, '')) await ends.sessionEnded(ended);
      await record(userId, 'sessions-ended', 'every browser signed out', by);
    },

    /** The person's signed-in browsers, most recently used first (a page of them). */
    sessions: (userId: string, limit: number) => sessionService.listSessions(userId, '', 0, limit),

    /** Signs one browser out (named by its handle, never its cookie); false when there is no such session. */
    async endSession(userId: string, handle: string, by: Operator): Promise<boolean> {
      const ended = await sessionService.endSession(userId, '', handle);
      if (!ended) return false;
      for (const session of ended) await ends.sessionEnded(session);
      await record(userId, 'sessions-ended', 'one browser signed out', by);
      return true;
    },

    /** The app and passkeys removed: the person enrols again. */
    async resetFactors(userId: string, by: Operator): Promise<void> {
      await factorsService.removeFactorsSince(userId, new Date(0));
      await record(userId, 'factor-removed', 'every second factor reset', by);
    },

    /** The applications the person allowed (a page of them). */
    applications: (userId: string) => grantsService.listConnected(stores.clients, userId),

    /** Forgets the person's consent for the client and ends its tokens; false when there was none. */
    async revokeApplication(userId: string, clientId: string, by: Operator): Promise<boolean> {
      if (!(await grantsService.revoke(userId, clientId, config.oauth))) return false;
      await record(userId, 'application-revoked', `access of ${clientId} ended`, by);
      return true;
    },

    /** Mails the person a reset link (the forgotten-password mail, with its limits); false for a person without an email. */
    async sendResetLink(user: { id: string; email: string | null }, by: Operator): Promise<boolean> {
      if (!user.email) return false;
      await accounts.requestReset(user.email, { shown: by.address, address: by.address, device: `console, by ${by.name}` });
      return true;
    },

    /** Deletes the person: everything issued to them ends. The event stays in the log. */
    async remove(userId: string, by: Operator): Promise<void> {
      await usersService.remove(userId, ends.accessEnded);
      await record(userId, 'deleted', 'account deleted', by);
    },

    /** Forgets the account's failed sign-ins (from every address), so its owner can sign in at once. */
    async unlock(user: { id: string; email: string | null }, by: Operator): Promise<number> {
      const forgotten = user.email ? await forgetFailuresOf(config, user.email) : 0;
      await record(user.id, 'unlocked', `${forgotten} failed sign-ins forgotten`, by);
      return forgotten;
    },

    /** Applications whose name or id starts with `q`, in id order. */
    async findApplications(q: string | undefined, after: string | undefined, limit: number) {
      const { shown, next } = paged(await clientsService.search(q, after, limit + 1), limit, (client) => client.client_id);
      return { applications: shown, next };
    },

    /** One application's registration under RFC 7591's names (never its secret); null when there is none. */
    application: (clientId: string) => registrationService.metadataOf(clientId, config.publicUrl),

    /** Who has granted the application something, a page at a time in person order. */
    async grantsOf(clientId: string, after: string | undefined, limit: number) {
      const found = paged(await grantsService.grantsOfClient(clientId, after, limit + 1), limit, (grant) => grant.person_id);
      const people = await Promise.all(found.shown.map((grant) => usersService.findById(grant.person_id)));
      return { grants: found.shown.map((grant, i) => ({ ...grant, email: people[i]?.email ?? null })), next: found.next };
    },

    /** Registers an application as RFC 7591 does, owned by no person; the secret is in this answer only. */
    async registerApplication(body: unknown, by: Operator) {
      const registered = await registrationService.register(undefined, body, clientsService.jwtContext(config, stores.clientKeySets));
      await record(null, 'application-registered', `${registered.client_name} registered`, by, registered.client_id);
      return registered;
    },

    /** Changes the name, website, redirect URIs or grants; null when there is no such application. */
    async changeApplication(clientId: string, changes: registrationService.RegistrationChanges, by: Operator) {
      const changed = await registrationService.change(clientId, changes);
      if (changed) await record(null, 'application-changed', `${Object.keys(changes).join(', ')} changed`, by, clientId);
      return changed;
    },

    /** A new secret (the old one refused at once here, within a second elsewhere); null when there is no such application. */
    async rotateSecret(clientId: string, by: Operator): Promise<string | null> {
      const secret = await clientsService.rotateSecret(clientId);
      if (secret) await record(null, 'application-secret-rotated', 'secret replaced', by, clientId);
      return secret;
    },

    /** Deletes the application and everything issued to it; false when there was none. */
    async removeApplication(clientId: string, by: Operator): Promise<boolean> {
      const removed = await clientsService.removeClient(clientId, ends.clientRemoved);
      if (removed) await record(null, 'application-deleted', 'application deleted', by, clientId);
      return removed;
    },

    /** The published signing keys, newest first: current, or retired and published until what they signed expires. */
    keys: async () =>
      (await listPublished()).map((key) => ({
        kid: key._id,
        alg: key.alg,
        state: key.retiredAt ? ('retired' as const) : ('current' as const),
        created_at: key.createdAt.toISOString(),
        ...(key.retiredAt ? { retired_at: key.retiredAt.toISOString() } : {}),
        ...(key.publishUntil ? { published_until: key.publishUntil.toISOString() } : {}),
      })),

    /** New keys current now; the old ones stay published until what they signed has expired. */
    /** Token exchange rules (RFC 8693, ID-JAG), a page in client and audience order. */
    exchangePolicies: (after: string | undefined, limit: number) => exchangeService.page(limit, after),

    /** Sets a client's exchange rule for an audience from its fields (EXCHANGE_POLICY); a Refusal says what is wrong. */
    async setExchangePolicy(body: unknown, by: Operator): Promise<exchangeService.ExchangePolicyView> {
      const policy = await exchangeService.set(body, isClient);
      await record(null, 'exchange-policy-set', `${policy.client_id} to ${policy.audience} (${policy.token_type})`, by);
      return policy;
    },

    /** false when there was no such rule. */
    async removeExchangePolicy(clientId: string, audience: string, by: Operator): Promise<boolean> {
      if (!(await exchangeService.remove(clientId, audience))) return false;
      await record(null, 'exchange-policy-deleted', `${clientId} to ${audience}`, by);
      return true;
    },

    /** Clients known by their metadata documents that got a token here, with how many people granted each. */
    documentClients: (q: string | undefined, after: string | undefined, limit: number) =>
      documents.pageOfDocumentClients(q, after, limit, grantsService.peopleOfClient),

    documentHosts: (after: string | undefined, limit: number) => documents.pageOfHosts(after, limit),

    async ruleDocumentHost(host: string, rule: documents.HostRule, by: Operator) {
      const view = await documents.ruleHost(host, rule);
      await record(null, 'document-host-ruled', `${rule} ${host}`, by);
      return view;
    },

    /** false when the host had no rule. */
    async forgetDocumentHost(host: string, by: Operator): Promise<boolean> {
      if (!(await documents.forgetHost(host))) return false;
      await record(null, 'document-host-ruled', `forgot ${host}`, by);
      return true;
    },

    async rotateKeys(by: Operator): Promise<string[]> {
      const kids = await rotate(keyRingOptions(config.oauth));
      await record(null, 'keys-rotated', `new keys ${kids.join(', ')}`, by);
      return kids;
    },

    /** Events newest first; `next` is the cursor of the next page. */
    async events(filter: EventFilter, limit: number) {
      const found = await activity.search(filter, limit + 1);
      const shown = found.slice(0, limit);
      const last = shown[shown.length - 1];
      return { events: shown, next: found.length > limit ? eventsCursor(last.at, last._id) : null };
    },
  };
}

export type Administration = ReturnType<typeof createAdministration>;
