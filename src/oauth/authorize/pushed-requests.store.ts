// The store of pushed authorization requests (RFC 9126 §2.2 and §4): each request_uri is bound to
// its client, opened by the first browser that brings it within its lifetime, and used once: the
// code or tokens issued from it take it (a delete that only one of many racers wins).
import { trusted } from 'mongoose';
import { randomToken, sha256 } from '../../common/crypto';
import { throttled } from '../../db/sweeper';
import type { OAuthParameters } from '../oauth.parameters';
import { LIMITS, PUSHED_REQUEST_URI_PREFIX } from '../protocol';
import { PushedRequestModel } from './pushed-requests.model';

const sweepExpired = throttled(60_000, async (now) => {
  await PushedRequestModel.deleteMany({ expiresAt: trusted({ $lte: now }) }).exec();
});

/** The store key of a request_uri, or null when it is not one this server hands out. */
function keyOf(requestUri: string): string | null {
  if (!requestUri.startsWith(PUSHED_REQUEST_URI_PREFIX)) return null;
  const handle = requestUri.slice(PUSHED_REQUEST_URI_PREFIX.length);
  return /^[\w-]{22,64}$/.test(handle) ? sha256(handle) : null;
}

/** Keeps a checked request for its client; the request_uri and its lifetime in seconds. */
export async function push(
  clientId: string,
  parameters: OAuthParameters,
  now = new Date(),
): Promise<{ requestUri: string; expiresIn: number }> {
  const handle = randomToken();
  const expiresIn = LIMITS.pushedRequestLifetimeSeconds;
  await PushedRequestModel.create({
    _id: sha256(handle),
    clientId,
    parameters,
    opened: false,
    expiresAt: new Date(now.getTime() + expiresIn * 1000),
  });
  sweepExpired(now);
  return { requestUri: `${PUSHED_REQUEST_URI_PREFIX}${handle}`, expiresIn };
}

/**
 * The parameters a request_uri stands for, when it is this client's and still live: the first time
 * (a browser bringing it) it is opened for LIMITS.pushedRequestOpenSeconds, so a person has time to
 * sign in and consent; a reload within that time finds it again (RFC 9126 §4 allows it). null otherwise.
 */
export async function open(clientId: string, requestUri: string, now = new Date()): Promise<OAuthParameters | null> {
  const key = keyOf(requestUri);
  if (!key) return null;
  const found = await PushedRequestModel.findOne({ _id: key, clientId, expiresAt: trusted({ $gt: now }) })
    .lean<{ parameters: OAuthParameters; opened: boolean }>()
    .exec();
  if (!found) return null;
  if (!found.opened) {
    const openUntil = new Date(now.getTime() + LIMITS.pushedRequestOpenSeconds * 1000);
    await PushedRequestModel.updateOne({ _id: key }, { $set: { opened: true, expiresAt: openUntil } }).exec();
  }
  return found.parameters;
}

/** Uses the request up: true for the one caller that took it, false when it was gone already. */
export async function take(requestUri: string): Promise<boolean> {
  const key = keyOf(requestUri);
  if (!key) return false;
  const { deletedCount } = await PushedRequestModel.deleteOne({ _id: key }).exec();
  return deletedCount === 1;
}
