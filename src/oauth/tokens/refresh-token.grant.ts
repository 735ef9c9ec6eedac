// grant_type=refresh_token (RFC 6749 §6) with rotation (RFC 9700 §4.14.2): each use gives a new
// refresh token and spends the old one; a spent one presented again revokes its whole family. With
// OAUTH_REFRESH_GRACE_SECONDS a just-rotated token may be presented again by its client once within
// the window (two tabs, a lost response) and continues the family instead; a second replay is a
// replay like any other. The requested scope is checked before anything is spent, so a refused
// refresh changes nothing. A FAPI 2.0 client's refresh token is not rotated (FAPI 2.0 Security
// Profile 5.3.2.1: only in extraordinary circumstances; it authenticates with private_key_jwt and its
// tokens are DPoP-bound): each refresh gives a new access token, and it keeps its refresh token.
import type { Clock } from '../../common/clock';
import { sha256 } from '../../common/crypto';
import { invalidGrant, OAuthErrorResponse } from '../oauth.errors';
import { narrowedScope } from '../protocol';
import { withIdToken } from './issuing.service';
import { isPublic } from '../clients/clients.service';
import { isFapi } from '../clients/fapi.service';
import { ensureProofBy, ensureScopeFor, personOf, required, resourceOf, type GrantHandler } from './token-request';
import * as tokensDao from './tokens.dao';
import type { FamilyDocument, SpentDocument, TokenDocument } from './tokens.model';
import { personStillGrants } from './tokens.service';

// Another client's token is answered like an unknown one, so the answer confirms nothing.
const INVALID_REFRESH_TOKEN = 'The refresh token is invalid, expired or was revoked';
/** How long a spent marker is kept when its token had no expiry of its own. */
const SPENT_MARKER_FALLBACK_MS = 24 * 3600 * 1000;

/** A presented refresh token's record, its family (null for a client's own), and whether a graceful replay found it. */
interface Presented {
  token: TokenDocument;
  family: FamilyDocument | null;
  rotated: boolean;
}

/** Rotation's bookkeeping: which live token a presented refresh token stands for, and spending it. */
function createRotation(graceSeconds: number, clock: Clock) {
  const graceMs = graceSeconds * 1000;
  const inGrace = (spent: { graceUntil?: Date } | null): boolean =>
    spent?.graceUntil !== undefined && spent.graceUntil.getTime() > clock.now();

  /**
   * The one replay the grace window allows for a spent token, taken by writing a marker of its own
   * (a unique id, so of replays racing on any number of instances exactly one gets it).
   */
  const takeGraceReplay = (spent: SpentDocument): Promise<boolean> =>
    tokensDao.markSpent(`grace:${spent._id}`, spent.familyId, spent.expiresAt);

  /**
   * The live token a refresh token stands for: its own, or within the grace period its family's
   * newest; with its family (tokens.model.ts), which a person's token cannot live without.
   */
  async function presented(refreshToken: string, hash: string): Promise<Presented | null> {
    const token = await tokensDao.findTokenByRefresh(refreshToken, hash);
    if (token) {
      const family = token.userId === undefined ? null : await tokensDao.findFamily(token.familyId);
      return token.userId === undefined || family ? { token, family, rotated: false } : null;
    }
    const spent = await tokensDao.findSpent(hash);
    if (!spent) return null;
    if (inGrace(spent) && (await takeGraceReplay(spent))) {
      const family = await tokensDao.findFamily(spent.familyId);
      const newest = family && (await tokensDao.newestRefreshable(family));
      if (newest) return { token: newest, family, rotated: true };
    }
    await tokensDao.deleteFamily(spent.familyId);
    return null;
  }

  /** Spends the presented token; false when it was spent before outside the grace period (the family is revoked). */
  async function spend(hash: string, token: TokenDocument, rotated: boolean): Promise<boolean> {
    if (rotated) return true;
    const expiresAt = token.refreshTokenExpiresAt ?? new Date(Date.now() + SPENT_MARKER_FALLBACK_MS);
    const graceUntil = graceMs > 0 ? new Date(clock.now() + graceMs) : undefined;
    if (await tokensDao.markSpent(hash, token.familyId, expiresAt, graceUntil)) {
      await tokensDao.dropRefreshToken(token._id);
      return true;
    }
    // Used at the same moment by another request: within the grace period the family lives on, once.
    const spent = await tokensDao.findSpent(hash);
    if (spent && inGrace(spent) && (await takeGraceReplay(spent))) return true;
    await tokensDao.deleteFamily(token.familyId);
    return false;
  }

  return { presented, spend };
}

/** `clock`: what the grace window is measured by. */
export function createRefreshTokenGrant(graceSeconds: number, clock: Clock): GrantHandler {
  const { presented, spend } = createRotation(graceSeconds, clock);
  return async (request) => {
    const { client, parameters, lifetimes, idTokens, proof, issue } = request;
    const refreshToken = required(parameters, 'refresh_token');
    const hash = sha256(refreshToken);
    const found = await presented(refreshToken, hash);
    if (!found || found.token.clientId !== client._id) throw invalidGrant(INVALID_REFRESH_TOKEN);
    const { token, family, rotated } = found;
    if (!token.refreshTokenExpiresAt || token.refreshTokenExpiresAt <= new Date()) throw invalidGrant(INVALID_REFRESH_TOKEN);
    const scope = narrowedScope(token.scope, parameters.scope);
    if (!scope) throw new OAuthErrorResponse('invalid_scope', 'A refresh may narrow the scope, never widen it');
    const resource = await resourceOf(request, token);
    ensureScopeFor(resource, scope);
    // RFC 9449 §5: a public client's refresh token is bound to its DPoP key; a confidential client's
    // is not (it authenticates), and each refresh binds the new access token to the proof it sends.
    if (isPublic(client)) ensureProofBy(token.jkt, proof, 'The refresh token');
    const person = token.userId ? await personOf(token.userId) : null;
    // Deleted, disabled, a new password, or the application revoked since: the token is dead.
    if (person && !personStillGrants(person, token)) throw invalidGrant(INVALID_REFRESH_TOKEN);
    const rotates = !isFapi(client);
    if (rotates && !(await spend(hash, token, rotated))) throw invalidGrant(INVALID_REFRESH_TOKEN);
    const issued = await issue(
      {
        client,
        person,
        scope,
        grantType: 'refresh_token',
        refreshToken: rotates,
        familyId: token.familyId,
        continues: family ?? undefined,
        authTime: token.authTime,
        amr: token.amr,
        claims: token.claims,
        sid: token.sid,
        jkt: proof?.jkt,
        resource,
      },
      lifetimes,
    );
    return withIdToken(idTokens, issued, client, { authTime: token.authTime, amr: token.amr, claims: token.claims, sid: token.sid });
  };
}
