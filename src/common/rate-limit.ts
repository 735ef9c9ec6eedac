// Sliding-window rate limits counted in MongoDB (shared by every instance). A request is checked
// before anything is written: one refused by a limit writes nothing, and only what a rule counts
// (every request, or failures only) adds a hit. RATE_LIMITS=off turns them all off.
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

/** A rule applied to one client or account. */
export interface Hit {
  rule: LimitRule;
  key: string;
}

/**
 * Over a limit: only the wait, in seconds. It is not an HTTP answer; each surface words its 429 in
 * its own format with tooManyRequestsAs (one that does not is a 500 in the tests).
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

/** Throws TooManyRequestsError when any of the hits' rules is already at its limit; writes nothing. */
export async function ensureAllowed(hits: Hit[], now = new Date()): Promise<void> {
  const counts = await Promise.all(hits.map((hit) => rateLimitStore.countLive(storeKey(hit), now)));
  const full = hits.filter((hit, i) => counts[i] >= hit.rule.limit);
  if (full.length === 0) return;
  // A count drops when its oldest hit expires; wait until every full rule has room again.
  const expiries = await Promise.all(full.map((hit) => rateLimitStore.oldestExpiry(storeKey(hit), now)));
  const waitMs = Math.max(...full.map((hit, i) => (expiries[i] ? expiries[i].getTime() - now.getTime() : hit.rule.windowMs)));
  throw new TooManyRequestsError(Math.max(1, Math.ceil(waitMs / 1000)));
}

export function record(hits: Hit[], now = new Date()): Promise<void> {
  return rateLimitStore.insertHits(
    hits.map((hit) => ({ key: storeKey(hit), expiresAt: new Date(now.getTime() + hit.rule.windowMs) })),
    now,
  );
}

/** The client address; IPv6 addresses are grouped by /56, since one subscriber usually holds that many. */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (!isIPv6(address) || address.startsWith('::ffff:')) return address.replace(/^::ffff:/, '');
  const groups = expandIPv6(address);
  return `${groups.slice(0, 3).join(':')}:${groups[3].slice(0, 2)}00::/56`;
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

/**
 * Route middleware counting every request (refused ones excepted). `tooMany` shapes the 429 in the
 * route's format.
 */
export function limitsFor(config: Config, limits: RouteLimit[], tooMany: (refused: TooManyRequestsError) => AppError): RequestHandler[] {
  if (!config.rateLimits) return [];
  return [
    async (req: Request, _res: Response, next) => {
      const hits = limits.flatMap(({ rule, key }) => {
        const value = key(req);
        return value === undefined ? [] : [{ rule, key: value }];
      });
      try {
        await ensureAllowed(hits);
      } catch (err) {
        throw err instanceof TooManyRequestsError ? tooMany(err) : err;
      }
      await record(hits);
      next();
    },
  ];
}
