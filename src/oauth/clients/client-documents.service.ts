// OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, which the MCP
// authorization specs ask servers to support): a client_id that is an https URL with a path is the
// address of a JSON document the client publishes about itself. It is fetched by the guarded fetcher
// (200 only, no redirects, CLIENT_DOCUMENT_LIMITS.bytes, CLIENT_ID_DOCUMENT_TIMEOUT_MS; in production
// never a private or loopback address), checked as a registration is plus the draft's own rules (its
// client_id is its URL, it names itself and its redirects, it shares no secret), and kept as its
// Cache-Control says. A refused or failed document is not kept. The operator allows or blocks hosts.
import type { Clock } from '../../common/clock';
import { guardedFetchAnswer, GuardedFetchError } from '../../common/guarded-fetch';
import { Refusal } from '../../common/refusals';
import { SignalledCache } from '../../common/signalled-cache';
import type { Config } from '../../config';
import { LIMITS, type ClientAuthMethod, type GrantType } from '../protocol';
import * as documentsDao from './client-documents.dao';
import type { HostRule } from './client-documents.model';
import type { ClientDocument } from './clients.model';
import type { ClientRegistry } from './clients.store';
import { readClientMetadata } from './registration.service';

export const CLIENT_DOCUMENT_LIMITS = {
  /** The draft suggests 5 kB. */
  bytes: 5 * 1024,
  /** Kept this long when the answer says nothing of caching. */
  defaultKeepMs: 5 * 60_000,
  /** Never kept longer, whatever the answer says. */
  maxKeepMs: 24 * 3600_000,
  /** Documents kept at once by one instance; the least recently used goes first. */
  kept: 1000,
  /** Different documents being fetched at once by one instance; a request for another is refused meanwhile. */
  fetchesAtOnce: 16,
  /** What a document's client may use and how it authenticates: never a shared secret. */
  grants: ['authorization_code', 'refresh_token'] as readonly GrantType[],
  methods: ['none', 'private_key_jwt'] as readonly ClientAuthMethod[],
} as const;

/** Why a document names no client here; its message is for the developer of the client. */
export class ClientDocumentRefused extends Error {}

/**
 * Whether a client_id is a document's address (draft §3): https, a path other than `/`, no user
 * name, password or fragment, and written as its parsed form (so no dot segments).
 */
export function isDocumentClientId(clientId: string): boolean {
  if (!clientId.startsWith('https://') || clientId.length > LIMITS.redirectUriLength) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  return url.href === clientId && url.pathname !== '/' && !url.username && !url.password && !clientId.includes('#');
}

/** The host a document client is known by (and the operator's rules name), lower case, with a port other than 443. */
export const documentHost = (clientId: string): string => new URL(clientId).host;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The client a document describes, or ClientDocumentRefused naming the first rule it breaks. */
export function clientOfDocument(clientId: string, body: string, allowPrivate: boolean, now: Date): ClientDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ClientDocumentRefused('the metadata document is not JSON');
  }
  if (!isObject(parsed)) throw new ClientDocumentRefused('the metadata document is not a JSON object');
  if (parsed.client_id !== clientId) throw new ClientDocumentRefused("the metadata document's client_id is not its own URL");
  if ('client_secret' in parsed || 'client_secret_expires_at' in parsed)
    throw new ClientDocumentRefused('a metadata document holds no client_secret');
  const method = parsed.token_endpoint_auth_method ?? 'none';
  if (!(CLIENT_DOCUMENT_LIMITS.methods as readonly unknown[]).includes(method))
    throw new ClientDocumentRefused('token_endpoint_auth_method must be none or private_key_jwt: a metadata document shares no secret');
  if (typeof parsed.client_name !== 'string' || parsed.client_name.trim() === '')
    throw new ClientDocumentRefused('the metadata document must have a client_name');
  if (!Array.isArray(parsed.redirect_uris) || parsed.redirect_uris.length === 0)
    throw new ClientDocumentRefused('the metadata document must list its redirect_uris');
  let read: ReturnType<typeof readClientMetadata>;
  try {
    read = readClientMetadata({ ...parsed, token_endpoint_auth_method: method }, allowPrivate);
  } catch (err) {
    if (err instanceof Refusal) throw new ClientDocumentRefused(err.message);
    throw err;
  }
  if (!read.grants.every((grant) => CLIENT_DOCUMENT_LIMITS.grants.includes(grant)))
    throw new ClientDocumentRefused(`a metadata document's client may use only ${CLIENT_DOCUMENT_LIMITS.grants.join(', ')}`);
  return {
    _id: clientId,
    name: read.name,
    website: read.website ?? '',
    redirectUri: read.redirectUris[0],
    redirectUris: read.redirectUris,
    postLogoutRedirectUris: read.postLogoutRedirectUris,
    grants: read.grants,
    tokenEndpointAuthMethod: read.authMethod,
    metadata: read.metadata,
    createdAt: now,
  };
}

/** How long an answer may be kept, from its Cache-Control (RFC 9111 §5.2): 0 when it must not be. */
export function keepFor(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache')) return 0;
  const maxAge = directives.find((directive) => directive.startsWith('max-age='));
  if (maxAge === undefined) return CLIENT_DOCUMENT_LIMITS.defaultKeepMs;
  const seconds = Number(maxAge.slice('max-age='.length));
  return Number.isInteger(seconds) && seconds >= 0 ? Math.min(seconds * 1000, CLIENT_DOCUMENT_LIMITS.maxKeepMs) : 0;
}

export interface DocumentSettings {
  mode: Config['clientDocuments']['mode'];
  timeoutMs: number;
  /** Development: http and private addresses may be fetched (never in production). */
  allowPrivate: boolean;
}

export const documentSettings = (config: Pick<Config, 'clientDocuments' | 'isProduction'>): DocumentSettings => ({
  ...config.clientDocuments,
  allowPrivate: !config.isProduction,
});

/** Whether the operator's rules let this server take documents from `host`. */
async function hostAllowed(settings: DocumentSettings, host: string): Promise<boolean> {
  const rule = await documentsDao.ruleOf(host);
  return settings.mode === 'allowed' ? rule === 'allow' : rule !== 'block';
}

/**
 * The client registry with documents: a document's address is fetched (one fetch at a time per
 * address, however many requests ask) and kept; any other client_id is the registered one.
 */
export function documentClients(registered: ClientRegistry, settings: DocumentSettings, clock: Clock): ClientRegistry {
  const kept = new SignalledCache<ClientDocument>(documentsDao.documentHostsChanged, {
    maxEntries: CLIENT_DOCUMENT_LIMITS.kept,
    ttlMs: CLIENT_DOCUMENT_LIMITS.maxKeepMs,
    clock,
  });
  const fetching = new Map<string, Promise<{ client: ClientDocument; keepMs: number }>>();

  async function fetchDocument(clientId: string) {
    const host = documentHost(clientId);
    if (!(await hostAllowed(settings, host))) throw new ClientDocumentRefused(`this server takes no metadata documents from ${host}`);
    let answer;
    try {
      answer = await guardedFetchAnswer(clientId, {
        allowPrivate: settings.allowPrivate,
        maxBytes: CLIENT_DOCUMENT_LIMITS.bytes,
        timeoutMs: settings.timeoutMs,
      });
    } catch (err) {
      if (err instanceof GuardedFetchError) throw new ClientDocumentRefused(`the metadata document could not be fetched (${err.message})`);
      throw err;
    }
    const client = clientOfDocument(clientId, answer.body, settings.allowPrivate, new Date(clock.now()));
    return { client, keepMs: keepFor(answer.cacheControl) };
  }

  return {
    async find(clientId, explain) {
      if (!isDocumentClientId(clientId)) return registered.find(clientId, explain);
      if (settings.mode === 'off') {
        explain?.('this server takes no client metadata documents');
        return null;
      }
      const { value, generation } = await kept.get(clientId);
      if (value) return value;
      let pending = fetching.get(clientId);
      if (!pending) {
        if (fetching.size >= CLIENT_DOCUMENT_LIMITS.fetchesAtOnce) {
          explain?.('too many metadata documents are being fetched: try again shortly');
          return null;
        }
        pending = fetchDocument(clientId).finally(() => fetching.delete(clientId));
        fetching.set(clientId, pending);
      }
      try {
        const { client, keepMs } = await pending;
        if (keepMs > 0) kept.set(clientId, client, generation, keepMs);
        return client;
      } catch (err) {
        if (!(err instanceof ClientDocumentRefused)) throw err;
        explain?.(err.message);
        return null;
      }
    },
  };
}

/** Record that a document client got a token (the console's list): written at most once an hour per client and instance. */
export function documentSightings(clock: Clock) {
  const written = new Map<string, number>();
  return async (client: ClientDocument): Promise<void> => {
    if (!isDocumentClientId(client._id)) return;
    const now = clock.now();
    const last = written.get(client._id);
    if (last !== undefined && now - last < 3600_000) return;
    written.delete(client._id);
    if (written.size >= CLIENT_DOCUMENT_LIMITS.kept) written.delete(written.keys().next().value!);
    written.set(client._id, now);
    await documentsDao.seen(client._id, documentHost(client._id), client.name, new Date(now));
  };
}

/** A document client as the admin API and the console show it. */
export interface DocumentClientView {
  client_id: string;
  host: string;
  name: string;
  first_seen: string;
  last_seen: string;
  /** How many people granted it something. */
  grants: number;
}

/** The operator's view of the document clients: a page in URL order after `after`, those under `prefix` when given. */
export async function pageOfDocumentClients(
  prefix: string | undefined,
  after: string | undefined,
  limit: number,
  grantsOf: (clientId: string) => Promise<number>,
): Promise<{ clients: DocumentClientView[]; next: string | null }> {
  const found = await documentsDao.pageOfClients(prefix, after, limit + 1);
  const shown = found.slice(0, limit);
  const clients = await Promise.all(
    shown.map(async (client) => ({
      client_id: client._id,
      host: client.host,
      name: client.name,
      first_seen: client.firstSeen.toISOString(),
      last_seen: client.lastSeen.toISOString(),
      grants: await grantsOf(client._id),
    })),
  );
  return { clients, next: found.length > limit ? shown[shown.length - 1]._id : null };
}

/** A host as the operator names it: lower case, with a port other than 443 (https), or null when it is none. */
export function hostOf(value: string): string | null {
  try {
    const url = new URL(`https://${value}`);
    return url.host === value.toLowerCase() && url.pathname === '/' && !url.username ? url.host : null;
  } catch {
    return null;
  }
}

export interface DocumentHostView {
  host: string;
  rule: HostRule;
  at: string;
}

/** Allows or blocks a host's documents (every instance forgets the documents it kept); */
export async function ruleHost(host: string, rule: HostRule, now = new Date()): Promise<DocumentHostView> {
  await documentsDao.setRule(host, rule, now);
  return { host, rule, at: now.toISOString() };
}

/** Forgets a host's rule; false when it had none. */
export const forgetHost = (host: string): Promise<boolean> => documentsDao.deleteRule(host);

/** A page of host rules in host order after `after`. */
export async function pageOfHosts(after: string | undefined, limit: number): Promise<{ hosts: DocumentHostView[]; next: string | null }> {
  const found = await documentsDao.pageOfRules(after, limit + 1);
  const shown = found.slice(0, limit);
  return {
    hosts: shown.map((rule) => ({ host: rule._id, rule: rule.rule, at: rule.at.toISOString() })),
    next: found.length > limit ? shown[shown.length - 1]._id : null,
  };
}

export { HOST_RULES, type HostRule } from './client-documents.model';
