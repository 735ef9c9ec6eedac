// Authorization codes (RFC 6749 §4.1.2): issued at the authorization endpoint for a person's approval,
// kept only as a hash, live LIMITS.authorizationCodeLifetimeSeconds, used once by the code grant.
import { randomToken, sha256 } from '../../common/crypto';
import { LIMITS } from '../protocol';
import type { CodeDocument } from './tokens.model';
import * as tokensDao from './tokens.dao';

/** Stores a new code for the approved request and returns its plain value, for the redirect only. */
export async function issue(
  request: Omit<CodeDocument, '_id' | 'expiresAt'>,
  lifetimeSeconds: number = LIMITS.authorizationCodeLifetimeSeconds,
): Promise<string> {
  const code = randomToken();
  const expiresAt = new Date(Date.now() + lifetimeSeconds * 1000);
  await tokensDao.insertCode({ ...request, _id: sha256(code), expiresAt });
  return code;
}
