// The device authorization grant (RFC 8628): a device without a browser gets a user code for a person
// to type on the verification page, then polls the token endpoint until the person decides. User
// codes are USER_CODE's letters without vowels or look-alikes (BCDF-GHJK); device codes are single-use.
import { randomInt } from 'node:crypto';
import { randomToken, sha256 } from '../../common/crypto';
import { throttled } from '../../db/sweeper';
import { OAuthErrorResponse } from '../oauth.errors';
import { LIMITS, USER_CODE } from '../protocol';
import * as deviceDao from './device.dao';
import type { DeviceAuthorizationDocument } from './device.model';

export const DEVICE_CODE_LIFETIME_SECONDS = LIMITS.deviceCodeLifetimeSeconds;

const sweepExpired = throttled(60_000, deviceDao.deleteExpired);

function newUserCode(): string {
  const letters = Array.from({ length: USER_CODE.length }, () => USER_CODE.alphabet[randomInt(USER_CODE.alphabet.length)]);
  return `${letters.slice(0, USER_CODE.groupSize).join('')}-${letters.slice(USER_CODE.groupSize).join('')}`;
}

/** What a person typed, as it is stored: upper case, letters only (dashes and spaces are optional). */
export function normalizeUserCode(typed: string): string {
  return typed.toUpperCase().replace(/[^A-Z]/g, '');
}

const userCodeHash = (typed: string) => sha256(normalizeUserCode(typed));

export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  expiresIn: number;
  interval: number;
}

/** New user codes tried when one is taken (about one in 25 billion each while few are pending). */
const USER_CODE_ATTEMPTS = 3;

export async function start(clientId: string, scope: string[], interval: number): Promise<DeviceAuthorization> {
  const now = new Date();
  sweepExpired(now);
  const deviceCode = randomToken();
  for (let attempt = 0; attempt < USER_CODE_ATTEMPTS; attempt++) {
    const userCode = newUserCode();
    const stored = await deviceDao.insert({
      _id: sha256(deviceCode),
      userCodeHash: userCodeHash(userCode),
      clientId,
      scope,
      expiresAt: new Date(now.getTime() + DEVICE_CODE_LIFETIME_SECONDS * 1000),
      interval,
      status: 'pending',
    });
    if (stored) return { deviceCode, userCode, expiresIn: DEVICE_CODE_LIFETIME_SECONDS, interval };
  }
  throw new Error(`no free user code in ${USER_CODE_ATTEMPTS} tries`);
}

/** The pending authorization a typed user code names, or null (wrong, expired or already used). */
export function findPending(typedUserCode: string): Promise<DeviceAuthorizationDocument | null> {
  return deviceDao.findPendingByUserCode(userCodeHash(typedUserCode), new Date());
}

/** Records a person's decision on a pending authorization; false when it is no longer pending. */
export function decide(
  authorization: DeviceAuthorizationDocument,
  approved: boolean,
  userId: string,
  signedIn: { authTime?: Date; amr?: string[] } = {},
): Promise<boolean> {
  return deviceDao.decide(authorization._id, approved ? { status: 'approved', userId, ...signedIn } : { status: 'denied' });
}

const pollError = (name: string, description: string) => new OAuthErrorResponse(name, description);

/** What the device's poll gets: the person and scope once approved (then the code is spent), else the RFC's error. */
export async function redeem(
  deviceCode: string,
  clientId: string,
): Promise<{ userId: string; authTime?: Date; amr?: string[]; scope: string[] }> {
  const hash = sha256(deviceCode);
  const authorization = await deviceDao.find(hash);
  // Another client's device code is answered like an unknown one.
  if (!authorization || authorization.clientId !== clientId) throw pollError('invalid_grant', 'The device code is invalid');
  const now = new Date();
  if (authorization.expiresAt <= now) throw pollError('expired_token', 'The device code has expired');
  if (authorization.status === 'pending') {
    const tooSoon = authorization.lastPolledAt && now.getTime() - authorization.lastPolledAt.getTime() < authorization.interval * 1000;
    const interval = tooSoon ? authorization.interval + LIMITS.slowDownSeconds : authorization.interval;
    await deviceDao.recordPoll(hash, now, interval);
    if (tooSoon) throw pollError('slow_down', `Poll at most every ${interval} seconds`);
    throw pollError('authorization_pending', 'The person has not decided yet');
  }
  if (!(await deviceDao.take(authorization))) throw pollError('invalid_grant', 'The device code is invalid');
  if (authorization.status === 'denied' || !authorization.userId) throw pollError('access_denied', 'The person denied access');
  return { userId: authorization.userId, authTime: authorization.authTime, amr: authorization.amr, scope: authorization.scope };
}
