// Rate limits on the credential-guessing and token endpoints, keyed by client IP and by account,
// counted in MongoDB (shared by every instance), answered 429 with Retry-After in the route's own
// error format. RATE_LIMITS=off turns them all off.
import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Config } from '../config';
import { parseBasicAuthorization } from './basic-auth';
import { AppError } from './errors';
import { MongoRateLimitStore } from './rate-limit.store';

const FIFTEEN_MINUTES = 15 * 60_000;

export interface LimitRule {
  /** Names the counter; rules with the same name share counts. */
  name: string;
  limit: number;
  windowMs: number;
  /** The client or account a hit counts against; undefined skips the rule for this request. */
  key(req: Request): string | undefined;
  /** Count only failed attempts (responses of 400 and above). */
  failuresOnly?: boolean;
}

/** The rules as middleware; `tooMany` is the route's own 429, sent with Retry-After added. */
export function limitsFor(config: Config, rules: LimitRule[], tooMany: AppError): RequestHandler[] {
  if (!config.rateLimits) return [];
  return rules.map((rule) =>
    rateLimit({
      windowMs: rule.windowMs,
      limit: rule.limit,
      store: new MongoRateLimitStore(`${rule.name}:`),
      keyGenerator: (req) => rule.key(req) ?? '',
      skip: (req) => rule.key(req) === undefined,
      skipSuccessfulRequests: rule.failuresOnly ?? false,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      // Its configuration checks report through console; ours are covered by tests instead.
      validate: false,
      handler: (req, _res, next) => {
        const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
        const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(rule.windowMs / 1000);
        next(new AppError(tooMany.status, tooMany.body, { ...tooMany.headers, 'Retry-After': String(seconds) }));
      },
    }),
  );
}

/** The client address, with IPv6 addresses grouped by /56 as express-rate-limit advises. */
export const byIp = (req: Request): string => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');

/** The email a sign-in names (JSON or form body), normalised as stored. */
export function byEmail(req: Request): string | undefined {
  const email: unknown = req.body?.email;
  return typeof email === 'string' && email.trim() !== '' ? email.trim().toLowerCase().slice(0, 254) : undefined;
}

/** The OAuth client a token request names, by HTTP Basic or by parameter. */
export function byClientId(req: Request): string | undefined {
  const basic = parseBasicAuthorization(req.headers.authorization);
  const fromParameters: unknown = req.body?.client_id ?? req.query.client_id;
  const clientId = basic?.name ?? (typeof fromParameters === 'string' ? fromParameters : undefined);
  return clientId ? clientId.slice(0, 256) : undefined;
}

/** Password guessing: per address, and per account whatever the address. */
export const SIGN_IN_RULES: LimitRule[] = [
  { name: 'sign-in:ip', limit: 100, windowMs: FIFTEEN_MINUTES, key: byIp, failuresOnly: true },
  { name: 'sign-in:account', limit: 10, windowMs: FIFTEEN_MINUTES, key: byEmail, failuresOnly: true },
];

export const REFRESH_RULES: LimitRule[] = [{ name: 'refresh:ip', limit: 300, windowMs: FIFTEEN_MINUTES, key: byIp }];

export const TOKEN_ENDPOINT_RULES: LimitRule[] = [
  { name: 'token:ip', limit: 300, windowMs: FIFTEEN_MINUTES, key: byIp },
  { name: 'token:client', limit: 1000, windowMs: FIFTEEN_MINUTES, key: byClientId },
];
