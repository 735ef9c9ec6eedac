// Sender constraints as strategies: Bearer (RFC 6750: holding the token is enough) and DPoP (RFC
// 9449: a proof by the key the token is bound to). The Authorization scheme picks one; it hands the
// token to @node-oauth/oauth2-server in the form the library reads, words every refusal with its own
// challenge, and confirms the request may use the token the library found alive.
import { Request as LibraryRequest } from '@node-oauth/oauth2-server';
import type { Request, Response } from 'express';
import { bearerToken, dpopToken } from '../../common/authorization';
import { bearerChallenge, dpopChallenge } from '../../common/bearer-challenge';
import { AppError } from '../../common/errors';
import { dpopAlgorithmsFor } from '../clients/fapi.service';
import { DpopProofError, type DpopProofs } from '../dpop/dpop.service';
import { DPOP_ALGORITHMS } from '../protocol';
import type { LiveGrant } from './tokens.service';

/** What a refusal's challenge says besides its error: seed 001's realm, the scope needed (RFC 6750 §3), the resource's metadata (RFC 9728 §5.1). */
export interface ChallengeExtras {
  realm?: string;
  scope?: string;
  resourceMetadata?: string;
}

export interface SenderConstraint {
  /** Whether the request sent a token this way at all (none gets the bare challenge, RFC 6750 §3.1). */
  sent: boolean;
  /** The request as the library reads it: the token in a `Bearer` header (or, for Bearer, a form body). */
  libraryRequest: LibraryRequest;
  /** The bad-token error: Bearer's is the route's (seed 001 names it invalid_request), DPoP's invalid_token. */
  invalidTokenError(routeError: string): string;
  /** A refusal in this scheme's words, with its challenge (the route's extras, and `more`). */
  refusal(status: 401 | 403, error: string, description: string, more?: Pick<ChallengeExtras, 'scope'>): AppError;
  /** Throws the refusal unless the request may use this live token. */
  confirm(req: Request, live: LiveGrant): Promise<void>;
}

/** A bound token sent as Bearer (RFC 9449 §7.2) is refused with DPoP's challenge. */
const boundSentAsBearer = ({ resourceMetadata }: ChallengeExtras) => {
  const description = 'This access token is bound to a DPoP key: send it with the DPoP scheme and a proof';
  return new AppError(
    401,
    { error: 'invalid_token', error_description: description },
    { 'WWW-Authenticate': dpopChallenge({ error: 'invalid_token', description, resourceMetadata, algs: DPOP_ALGORITHMS }) },
  );
};

/**
 * The real request, for the library. RFC 7235 makes the scheme name case-insensitive, but the
 * library matches `Bearer` exactly, so another spelling, or DPoP's scheme, is handed over as `Bearer`.
 */
function asBearer(req: Request, token: string | null): LibraryRequest {
  const header = req.headers.authorization;
  if (!header || token === null || header.startsWith('Bearer ')) return new LibraryRequest(req);
  return new LibraryRequest({
    headers: { ...req.headers, authorization: `Bearer ${token}` } as unknown as Record<string, string>,
    method: req.method,
    query: req.query as Record<string, string>,
    body: req.body as unknown,
  });
}

function bearer(req: Request, challenge: ChallengeExtras): SenderConstraint {
  const body = req.body as Record<string, unknown> | undefined;
  const token = bearerToken(req.headers.authorization);
  return {
    sent: token !== null || req.query.access_token !== undefined || body?.access_token !== undefined,
    libraryRequest: asBearer(req, token),
    invalidTokenError: (routeError) => routeError,
    refusal: (status, error, description, more = {}) =>
      new AppError(
        status,
        { error, error_description: description },
        // Seed 001's route (a realm) words its challenge as the seed does: the error alone.
        { 'WWW-Authenticate': bearerChallenge({ ...challenge, ...more, error, ...(challenge.realm ? {} : { description }) }) },
      ),
    async confirm(_req, live) {
      if (live.grant.jkt) throw boundSentAsBearer(challenge);
    },
  };
}

function dpopBound(req: Request, res: Response, token: string, dpop: DpopProofs, challenge: ChallengeExtras): SenderConstraint {
  const nonce = dpop.nonce();
  if (nonce !== undefined) res.set('DPoP-Nonce', nonce);
  const refusal = (status: 401 | 403, error: string, description: string, more: Pick<ChallengeExtras, 'scope'> = {}) =>
    new AppError(
      status,
      { error, error_description: description },
      {
        'WWW-Authenticate': dpopChallenge({ ...challenge, ...more, error, description, algs: DPOP_ALGORITHMS }),
        ...(nonce ? { 'DPoP-Nonce': nonce } : {}),
      },
    );
  return {
    sent: true,
    // The body's token is the library's to refuse beside a header, as for Bearer.
    libraryRequest: asBearer(req, token),
    invalidTokenError: () => 'invalid_token',
    refusal,
    async confirm(request, live) {
      if (!live.grant.jkt) throw refusal(401, 'invalid_token', 'This access token is not bound to a DPoP key: send it as Bearer');
      const proof = await dpop.check(request, token, dpopAlgorithmsFor(live.client)).catch((err: unknown) => {
        if (err instanceof DpopProofError) throw refusal(401, err.error, err.message);
        throw err;
      });
      if (!proof) throw refusal(401, 'invalid_dpop_proof', 'Send a DPoP proof with a DPoP-bound access token');
      if (proof.jkt !== live.grant.jkt) throw refusal(401, 'invalid_token', 'The access token is bound to another DPoP key');
    },
  };
}

/** The sender constraint a request uses: DPoP when its Authorization scheme says so, Bearer otherwise; its refusals carry the route's `challenge`. */
export function senderOf(req: Request, res: Response, dpop: DpopProofs, challenge: ChallengeExtras = {}): SenderConstraint {
  const bound = dpopToken(req.headers.authorization);
  return bound === null ? bearer(req, challenge) : dpopBound(req, res, bound, dpop, challenge);
}
