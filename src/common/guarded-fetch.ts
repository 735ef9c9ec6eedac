// Fetching a document from an address someone else chose (a client's jwks_uri): over https only, to
// public addresses only (checked on the address actually connected to, so a name that resolves to a
// private one, or changes between lookups, is refused; never through a proxy, never to this host's
// own addresses), no redirects, and bounded in size and time.
// Outside production, http and loopback addresses are allowed, for development and the tests' fakes.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import axios from 'axios';

export interface GuardedFetchOptions {
  /** Development: http and private or loopback addresses are allowed. */
  allowPrivate: boolean;
  maxBytes: number;
  /** The whole exchange, connection to last byte. */
  timeoutMs: number;
  /** POST this form instead of a GET (any 2xx answer is then a success). */
  form?: Record<string, string>;
  /** What a GET asks for (JSON when absent). */
  accept?: string;
}

/** Why a fetch was refused or failed; the message names the rule, never the response. */
export class GuardedFetchError extends Error {
  /** True when the server never answered (a timeout, a refused or dropped connection). */
  constructor(
    message: string,
    readonly unanswered = false,
  ) {
    super(message);
  }
}

// Every RFC 6890 special-purpose range that is not globally reachable (and multicast, the 6to4 and
// NAT64 prefixes that can carry a private IPv4 address): no production fetch may reach these.
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** This host's own addresses (a public one included): a fetch must not come back to the server itself. */
function isOwnAddress(address: string): boolean {
  const own = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []);
  const mapped = address.toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');
  return own.some((entry) => entry.address.toLowerCase() === mapped);
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  // BlockList checks an IPv4-mapped IPv6 address (::ffff:7f00:1) against the IPv4 ranges too.
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6') || isOwnAddress(address);
}

/** dns.lookup, refusing every answer that is a private address. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const usable = addresses.filter((entry) => !isPrivateAddress(entry.address));
    if (usable.length === 0) return callback(new GuardedFetchError(`${hostname} resolves to no public address`), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
    callback(null, usable[0].address, usable[0].family);
  });
};

const strictAgents = {
  httpAgent: new http.Agent({ lookup: publicOnlyLookup }),
  httpsAgent: new https.Agent({ lookup: publicOnlyLookup }),
};

/** The body of a 200 answer at `address` (2xx for a POST), as text; GuardedFetchError for anything else. */
export async function guardedFetch(address: string, options: GuardedFetchOptions): Promise<string> {
  return (await guardedFetchAnswer(address, options)).body;
}

/** A fetched answer: its body and the one header a caller keeps it by. */
export interface FetchedAnswer {
  body: string;
  cacheControl: string | undefined;
}

/** guardedFetch, with the answer's Cache-Control (a client's metadata document is kept as it says). */
export async function guardedFetchAnswer(address: string, options: GuardedFetchOptions): Promise<FetchedAnswer> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new GuardedFetchError('not a URL');
  }
  const allowed = options.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol) || url.username || url.password) throw new GuardedFetchError('only https URLs are fetched');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) throw new GuardedFetchError('a private address');
  try {
    const response = await axios.request<string>({
      url: url.href,
      method: options.form ? 'POST' : 'GET',
      ...(options.form && { data: new URLSearchParams(options.form).toString() }),
      ...(options.allowPrivate ? {} : strictAgents),
      maxRedirects: 0,
      // HTTP(S)_PROXY would make the check above apply to the proxy, not to the address fetched.
      proxy: false,
      maxContentLength: options.maxBytes,
      timeout: options.timeoutMs,
      signal: AbortSignal.timeout(options.timeoutMs),
      responseType: 'text',
      transformResponse: (body: string) => body,
      validateStatus: (status) => (options.form ? status >= 200 && status < 300 : status === 200),
      headers: options.form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : { Accept: options.accept ?? 'application/json' },
    });
    const cacheControl = response.headers['cache-control'];
    return { body: response.data, cacheControl: typeof cacheControl === 'string' ? cacheControl : undefined };
  } catch (err) {
    if (err instanceof GuardedFetchError) throw err;
    const answered = axios.isAxiosError(err) && err.response !== undefined;
    const reason = axios.isAxiosError(err) ? (err.response ? `status ${err.response.status}` : (err.code ?? 'failed')) : 'failed';
    throw new GuardedFetchError(`fetching ${url.origin} ${reason}`, !answered);
  }
}
