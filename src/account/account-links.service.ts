// Links the server mails (docs/accounts.md): a random token in the URL, only its hash stored; each
// works once (of any number of requests at once, one uses it), until it expires, and only while it
// is the newest of its kind for the account. A reset link also dies when the password changes.
import { randomToken, sha256 } from '../common/crypto';
import { tokenField } from '../common/request-fields';
import { throttled } from '../db/sweeper';
import * as usersService from '../users/users.service';
import type { UserRecord } from '../users/users.types';
import * as linksDao from './account-links.dao';
import type { AccountLinkDocument } from './account-links.model';
import { LINK_LIFETIME_MS, type LinkPurpose } from './account.rules';

/** Why a link cannot be used: the page says which. */
export type DeadLink = 'invalid' | 'expired';

const sweepExpired = throttled(3600_000, (now) => linksDao.deleteExpired(now));

/** Makes a link for the user's email and returns its token (to put in the mailed URL). */
export async function issue(purpose: LinkPurpose, user: UserRecord & { email: string }): Promise<string> {
  const token = randomToken(32);
  const now = new Date();
  const id = sha256(token);
  await linksDao.insert({
    _id: id,
    purpose,
    userId: user._id,
    email: user.email,
    credentialsStamp: usersService.credentialsStampOf(user),
    createdAt: now,
    expiresAt: new Date(now.getTime() + LINK_LIFETIME_MS[purpose]),
  });
  sweepExpired(now);
  return token;
}

/** The link and its user when it can be used now, without using it up. */
/** A mailed link's token (randomToken(32)): another value is a link that is not valid. */
export const LINK_TOKEN = tokenField('The token from the mailed link; another value is a link that is not valid (400)');

export async function check(
  purpose: LinkPurpose,
  /** The link's token as LINK_TOKEN reads it: undefined when it is not one. */
  token: string | undefined,
): Promise<{ link: AccountLinkDocument; user: UserRecord } | { dead: DeadLink }> {
  if (token === undefined) return { dead: 'invalid' };
  const link = await linksDao.find(sha256(token));
  if (!link || link.purpose !== purpose) return { dead: 'invalid' };
  if (link.expiresAt <= new Date()) return { dead: 'expired' };
  const user = await usersService.findById(link.userId);
  if (!usersService.isActive(user) || user.email !== link.email) return { dead: 'invalid' };
  if (purpose === 'reset-password' && usersService.credentialsStampOf(user) !== link.credentialsStamp) return { dead: 'invalid' };
  if (await linksDao.hasNewer(link)) return { dead: 'invalid' };
  return { link, user };
}

/** Uses the link up: true for the one request (of any number at once) that did. */
export const useUp = (link: AccountLinkDocument): Promise<boolean> => linksDao.take(link._id);
