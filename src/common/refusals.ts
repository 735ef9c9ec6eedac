// Refusals are data: a service or a guard throws a domain error that carries no HTTP (a
// TooManyRequestsError carries only the wait), and each surface words it once, in the presenter
// attached where its routes are mounted (docs/architecture.md, "Refusals"): seed 000's JSON, the
// OAuth body (oauth/oauth.errors.ts), the catalogue's envelope (catalogue/), a page (web/), a
// script's `{ error }`. Controllers do not catch a refusal to word it.
import type { ErrorRequestHandler } from 'express';
import { AppError } from './errors';
import { TooManyRequestsError, tooManyRequestsAs } from './rate-limit';

/** The one wording of a 429 for programs (every JSON surface). */
export const TOO_MANY_REQUESTS = 'Too many requests, try again later';

/**
 * What kind of refusal: input that breaks a rule (`invalid`), something that exists already
 * (`conflict`), or a cap reached (`cap`: the clients one account may own).
 */
export type RefusalKind = 'invalid' | 'conflict' | 'cap';

/** A refusal with its reason in people's words, and no HTTP: each surface's presenter words it. */
export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** The protocol's own error code when there is one (RFC 6749 `invalid_request`, RFC 8707 `invalid_target`). */
    readonly protocolError?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The status of a refusal on the surfaces that use HTTP's own (the OAuth body has its own table). */
export const STATUS_OF: Readonly<Record<RefusalKind, number>> = { invalid: 400, conflict: 409, cap: 409 };

/** How one surface words the domain refusals. */
export interface SurfaceWords {
  tooMany(refused: TooManyRequestsError): AppError;
  refusal(refused: Refusal): AppError;
}

/** The presenter of a surface: a domain refusal in its words; anything else goes on as it is. */
export function presenter(words: SurfaceWords): ErrorRequestHandler {
  return (err, _req, _res, next) =>
    next(err instanceof TooManyRequestsError ? words.tooMany(err) : err instanceof Refusal ? words.refusal(err) : err);
}

/** Seed 000's routes (/users, /auth) and those shaped like them: `{ errors: [...] }` (seed 000 has no 429; docs/decisions.md). */
export const seedRefusals = presenter({
  tooMany: (refused) => tooManyRequestsAs({ errors: [TOO_MANY_REQUESTS] }, {}, refused),
  refusal: (refused) => new AppError(STATUS_OF[refused.kind], { errors: [refused.message] }),
});

/** JSON routes whose refusals are `{ error }` (the passkey ceremonies' scripts). */
export const jsonRefusals = presenter({
  tooMany: (refused) => tooManyRequestsAs({ error: TOO_MANY_REQUESTS }, {}, refused),
  refusal: (refused) => new AppError(STATUS_OF[refused.kind], { error: refused.message }),
});
