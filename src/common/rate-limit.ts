// Sliding-window rate limits counted in MongoDB (shared by every instance). A request is checked
// before anything is written: one refused by a limit writes nothing, and only what a rule counts
// (every request, or failures only) adds a hit. RATE_LIMITS=off turns them all off.
import { randomBytes, randomInt } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../config';
import { AppError } from './errors';
import * as rateLimitStore from './rate-limit.store';

export interface LimitRule {
  /** Names the counter; rules with the same name share counts. */
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

/** Every limit counts over the same sliding window (the configuration's limits are "per 15 minutes"). */
export const LIMIT_WINDOW_MS = 15 * 60_000;

export const limitRule = (name: string, limit: number): LimitRule => ({ name, limit, windowMs: LIMIT_WINDOW_MS });

/** A rule applied to one client or account. */
export interface Hit {
  rule: LimitRule;
  key: string;
}

/**
 * Over a limit: only the wait, in seconds. It is not an HTTP answer; each surface's presenter words
 * its 429 (common/refusals.ts; one that reaches the error handler unworded is a 500 in the tests).
 */
export class TooManyRequestsError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`over a rate limit for ${retryAfterSeconds} s`);
  }
}

/** The 429 of one surface: its body, its headers, and Retry-After from the refusal. */
export function tooManyRequestsAs(body: unknown, headers: Record<string, string>, refused: TooManyRequestsError): AppError {
  return new AppError(429, body, { ...headers, 'Retry-After': String(refused.retryAfterSeconds) });
}

const storeKey = ({ rule, key }: Hit) => `${rule.name}:${key}`;

const countsOf = (hits: Hit[], now: Date) => Promise.all(hits.map((hit) => rateLimitStore.countLive(storeKey(hit), now)));

/** The refusal for rules that are full: a count drops when its oldest hit expires, so wait until every one has room. */
async function refusal(full: Hit[], now: Date): Promise<TooManyRequestsError> {
  const expiries = await Promise.all(full.map((hit) => rateLimitStore.oldestExpiry(storeKey(hit), now)));
  const waitMs = Math.max(...full.map((hit, i) => (expiries[i] ? expiries[i].getTime() - now.getTime() : hit.rule.windowMs)));
  return new TooManyRequestsError(Math.max(1, Math.ceil(waitMs / 1000)));
}

/** Throws TooManyRequestsError when any of the hits' rules is already at its limit; writes nothing. */
export async function ensureAllowed(hits: Hit[], now = new Date()): Promise<void> {
  const counts = await countsOf(hits, now);
  const full = hits.filter((hit, i) => counts[i] >= hit.rule.limit);
  if (full.length > 0) throw await refusal(full, now);
}

/** Deletes a rule's hits for these keys, and for every key that starts with one of the prefixes. */
export function forgetHits(rule: LimitRule, keys: string[], keyPrefixes: string[] = []): Promise<number> {
  return rateLimitStore.deleteKeys(
    keys.map((key) => storeKey({ rule, key })),
    keyPrefixes.map((key) => storeKey({ rule, key })),
  );
}

/** Hits written before they are counted; `release` takes them back (an attempt that turned out not to count). */
export interface Reservation {
  /** The hits' ids, for a later request to take back with its own (releaseHits). */
  readonly ids: readonly string[];
  /** For each of the reservation's single-use marks: whether this request was the first to use it. */
  readonly fresh: readonly boolean[];
  /** Takes the hits back, and those of `also` in the same command (the marks stay used). */
  release(also?: readonly string[]): Promise<void>;
}

/**
 * A single-use value (an authenticator-app code's time step): written once, in the same command as a
 * reservation's hits, until it expires. A second write of the same id finds it used.
 */
export interface SingleUse {
  readonly id: string;
  readonly expiresAt: Date;
}

const singleUseDoc = ({ id, expiresAt }: SingleUse) => ({ _id: `once:${id}`, slot: `once:${id}`, key: `once:${id}`, expiresAt });

/** A hit's id: its slot (`<key>#<n>`, which a later step reads back from it) and a tail no other hit has. */
const hitId = (slot: string) => `${slot}~${randomBytes(6).toString('base64url')}`;

/** The slot number of a hit of `key` (its id or its slot), or NaN for another key's. */
function slotNumber(key: string, idOrSlot: string): number {
  if (!idOrSlot.startsWith(`${key}#`)) return Number.NaN;
  return Number(idOrSlot.slice(key.length + 1).split('~')[0]);
}

/** Writes single-use marks with no budget (rate limits off): for each, whether it was fresh. */
export async function useOnce(marks: readonly SingleUse[], now = new Date()): Promise<boolean[]> {
  const taken = await rateLimitStore.takeSlots(marks.map(singleUseDoc), now);
  return marks.map((_, i) => !taken.has(i));
}

/** Takes back single-use marks this request wrote and did not use after all (the check they went with failed). */
export const giveBackMarks = (marks: readonly SingleUse[]): Promise<void> =>
  rateLimitStore.deleteHits(marks.map((mark) => singleUseDoc(mark)._id));

/** Takes back hits an earlier request reserved and handed on (their ids). */
export const releaseHits = (ids: readonly string[]): Promise<void> => rateLimitStore.deleteHits([...ids]);

/** Rounds of looking again after a slot was found held, before a request gives up (a burst on one key). */
const RESERVE_ROUNDS = 4;

/** A slot of `limit` that none of `held` names: a random one, so that racing requests seldom pick the same. */
function freeSlot(limit: number, held: ReadonlySet<number>): number {
  // All named held (only hits known beforehand can do that here): a slot to find held, and the key full.
  if (held.size >= limit) return randomInt(limit);
  for (let tries = 0; tries < 8; tries++) {
    const slot = randomInt(limit);
    if (!held.has(slot)) return slot;
  }
  let slot = 0;
  while (held.has(slot)) slot++;
  return slot;
}

/**
 * Counts a request against its rules atomically, in one round trip when nothing stands in the way:
 * each hit is written into one of its key's `limit` numbered slots (a unique field), so however many
 * requests race, on one instance or many, at most `limit` hold a key at once. A slot found held makes
 * the request look at the key's slots (clearing expired hits) and take a free one; a key with none
 * free, or still contended after a few rounds, takes the request's hits back and throws
 * TooManyRequestsError. Under a burst some may be refused that a one-at-a-time order would have let
 * through, never the reverse. Single-use marks (`once`) ride in the first round's command: the
 * reservation says which were fresh, and a refused request takes back the ones it wrote. Hits the
 * caller knows are held (`known`: the password step's, which the second step gives back with its own)
 * are not tried as slots, so a second step does not pick its own first step's slot.
 */
export async function reserve(
  hits: Hit[],
  now = new Date(),
  once: readonly SingleUse[] = [],
  /** Hits this caller knows are held (an earlier step's, handed on): their slots are not tried. */
  known: readonly string[] = [],
): Promise<Reservation> {
  const written: string[] = [];
  const release = (also: readonly string[] = []) => rateLimitStore.deleteHits([...written, ...also]);
  const slotsNamed = (key: string) => new Set(known.map((id) => slotNumber(key, id)).filter((slot) => !Number.isNaN(slot)));
  let pending = hits.map((hit) => ({ hit, key: storeKey(hit), held: slotsNamed(storeKey(hit)) }));
  // The marks go with the first round's hits; one this request wrote is taken back if it is refused.
  const marks = once.map(singleUseDoc);
  let fresh: boolean[] = [];
  for (let round = 0; pending.length > 0 || round === 0; round++) {
    if (round > 0) {
      const slots = await rateLimitStore.slotsOf(pending.map(({ key }) => key));
      const expired = slots.filter((slot) => slot.expiresAt <= now).map((slot) => String(slot._id));
      await rateLimitStore.clearExpired(expired);
      for (const entry of pending) {
        const live = slots.filter((slot) => slot.key === entry.key && slot.expiresAt > now);
        // A hit written before slots had a field (none here) names no slot: it still counts in ensureAllowed.
        entry.held = new Set(live.filter((hit) => hit.slot).map((hit) => slotNumber(entry.key, hit.slot)));
      }
      const full = pending.filter(({ hit, held }) => held.size >= hit.rule.limit).map(({ hit }) => hit);
      if (full.length > 0 || round >= RESERVE_ROUNDS) {
        await release(marks.filter((_, i) => fresh[i]).map(({ _id }) => _id));
        throw full.length > 0 ? await refusal(full, now) : new TooManyRequestsError(1);
      }
    }
    const docs = pending.map(({ hit, key, held }) => {
      const slot = `${key}#${freeSlot(hit.rule.limit, held)}`;
      return { _id: hitId(slot), slot, key, expiresAt: new Date(now.getTime() + hit.rule.windowMs) };
    });
    const taken = await rateLimitStore.takeSlots(round === 0 ? [...docs, ...marks] : docs, now);
    if (round === 0) fresh = marks.map((_, i) => !taken.has(docs.length + i));
    docs.forEach((doc, i) => {
      if (!taken.has(i)) written.push(doc._id);
    });
    pending = pending.filter((_, i) => taken.has(i));
  }
  return { ids: written, fresh, release };
}

/** The client address; IPv6 addresses are grouped by /56, since one subscriber usually holds that many. */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (!isIPv6(address) || address.startsWith('::ffff:')) return address.replace(/^::ffff:/, '');
  const groups = expandIPv6(address);
  return `${groups.slice(0, 3).join(':')}:${groups[3].slice(0, 2)}00::/56`;
}

/**
 * The client address as a person reads it (the account page's signed-in browsers and activity): the
 * whole address, IPv4-mapped IPv6 as IPv4, IPv6 in its short form (RFC 5952), never a padded prefix.
 */
export function displayAddress(req: Request): string {
  return readableAddress(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

/** An address (or a stored `…::/56` prefix from clientAddress) in RFC 5952's short form. */
export function readableAddress(address: string): string {
  const [ip, prefix] = address.split('/');
  if (!isIPv6(ip)) return address;
  if (ip.toLowerCase().startsWith('::ffff:') && ip.includes('.')) return ip.slice(7);
  const groups = expandIPv6(ip.toLowerCase()).map((group) => group.replace(/^0+(?=.)/, ''));
  // The longest run of two or more zero groups (the first of equals) becomes "::".
  let best = { at: -1, length: 1 };
  for (let at = 0; at < 8; at++) {
    let length = 0;
    while (at + length < 8 && groups[at + length] === '0') length++;
    if (length > best.length) best = { at, length };
  }
  const short = best.at < 0 ? groups.join(':') : `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
  return prefix === undefined ? short : `${short}/${prefix}`;
}

function expandIPv6(address: string): string[] {
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => group.padStart(4, '0'));
}

export interface RouteLimit {
  rule: LimitRule;
  /** The client or account a request counts against; undefined skips the rule for it. */
  key(req: Request): string | undefined;
}

/** `limit` requests per window from one client address. */
export const perAddress = (name: string, limit: number): RouteLimit => ({ rule: limitRule(name, limit), key: clientAddress });

/**
 * Route middleware counting every request (refused ones excepted). Over a limit it throws
 * TooManyRequestsError, which the presenter of the route's surface words (common/refusals.ts).
 */
export function limitsFor(config: Config, limits: RouteLimit[]): RequestHandler[] {
  if (!config.rateLimits) return [];
  return [
    async (req: Request, _res: Response, next) => {
      const hits = limits.flatMap(({ rule, key }) => {
        const value = key(req);
        return value === undefined ? [] : [{ rule, key: value }];
      });
      await reserve(hits);
      next();
    },
  ];
}
