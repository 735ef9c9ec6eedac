// Who a person coming back from an upstream provider is here (docs/upstream.md, "Linking"): the
// provider's `sub` finds the linked account; without a link, an address the provider vouches for (and
// the operator trusts it for) makes a new account, or, when an account has it already, the person
// must prove that account is theirs before anything is linked. Nothing is ever linked by email alone.
import { isDuplicateKeyError } from '../db/duplicate-key';
import { normalizeEmail } from '../common/email';
import * as signUpService from '../users/sign-up.service';
import * as factorsService from '../factors/factors.service';
import * as usersService from '../users/users.service';
import type { ProviderName } from '../users/users.providers';
import type { ProviderAccount } from '../users/users.types';
import * as linksDao from './upstream-links.dao';
import { emailTrusted, type UpstreamProvider } from './upstream.settings';

/** A link younger than this whose person is missing is still being made by another request. */
const CREATION_WINDOW_MS = 60_000;

/** What the provider said of the person, read through the provider's claim names. */
export interface UpstreamPerson {
  subject: string;
  email?: string;
  emailVerified?: boolean;
  firstName?: string;
  lastName?: string;
  picture?: string;
  /** The provider's own `amr`, when it sent one. */
  amr?: string[];
}

export type Arrival =
  | { kind: 'known'; userId: string }
  | { kind: 'created'; userId: string }
  /** An account here has the address: its owner must prove it before the link is made. */
  | { kind: 'prove'; userId: string; email: string }
  /** No address the provider vouches for, so no account can be made or found by it. */
  | { kind: 'unverified-email'; email?: string }
  /** Another request is making this person's account at this moment. */
  | { kind: 'busy' };

/** A claim's text, trimmed, or undefined. */
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
/** A name cut to what a name may be here (users' MAX_NAME_LENGTH). */
const nameOf = (value: string | undefined): string | undefined => value?.slice(0, signUpService.MAX_NAME_LENGTH);

/**
 * The provider's claims, mapped (Apple sends `email_verified` as the text "true"). An address is held
 * to POST /users's own rule (issue 48, finding 12: one email rule for every way an account is made):
 * one it would refuse (invisible or control characters, mixed scripts, too long, no address at all)
 * is left out, never cut or cleaned (cut, it would be another one); so is a URL too long for this server.
 */
export async function personOf(provider: UpstreamProvider, claims: Record<string, unknown> & { sub: string }): Promise<UpstreamPerson> {
  const names = provider.claims;
  const verified = claims[names.email_verified];
  const typed = text(claims[names.email]);
  const email = typed !== undefined && (await signUpService.emailProblem(typed)) === null ? typed : undefined;
  const full = text(claims[names.name]);
  const space = full?.indexOf(' ') ?? -1;
  const picture = text(claims[names.picture]);
  return {
    subject: claims.sub,
    email: email && normalizeEmail(email),
    emailVerified: verified === true || verified === 'true' ? true : verified === false || verified === 'false' ? false : undefined,
    firstName: nameOf(text(claims[names.given_name]) ?? (space > 0 ? full!.slice(0, space) : full)),
    lastName: nameOf(text(claims[names.family_name]) ?? (space > 0 ? full!.slice(space + 1) : undefined)),
    picture: picture && /^https:\/\//.test(picture) && signUpService.isPictureUrl(picture) ? picture : undefined,
    amr: Array.isArray(claims.amr) ? claims.amr.filter((value): value is string => typeof value === 'string').slice(0, 10) : undefined,
  };
}

/** The account a sign-in through the provider leads to, made now when it is the person's first. */
export async function arrive(provider: UpstreamProvider, person: UpstreamPerson, now: Date): Promise<Arrival> {
  const link = await linksDao.find(provider.id, person.subject);
  if (link) {
    if (await usersService.findById(link.userId)) return { kind: 'known', userId: link.userId };
    if (now.getTime() - link.linkedAt.getTime() < CREATION_WINDOW_MS) return { kind: 'busy' };
    // The person was deleted: the provider account is free again.
    await linksDao.removeById(provider.id, person.subject);
  }
  const { email } = person;
  if (!email || !emailTrusted(provider, email, person.emailVerified)) return { kind: 'unverified-email', email };
  const existing = await usersService.findByEmail(email);
  if (existing) return { kind: 'prove', userId: existing._id, email };
  // The link first, for an id made here: of any number of first sign-ins at once, one links, and
  // only that one makes the account.
  const userId = usersService.newUserId();
  try {
    await linksDao.insert({ provider: provider.id, subject: person.subject, userId, email, linkedAt: now });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    return { kind: 'busy' };
  }
  const created = await usersService.createFederated(
    userId,
    {
      email,
      firstName: person.firstName,
      lastName: person.lastName,
      avatarUrl: person.picture,
    },
    now,
  );
  if (!created) {
    // The address was taken a moment ago (a sign-up): that account's owner must prove it.
    await linksDao.removeById(provider.id, person.subject);
    const owner = await usersService.findByEmail(email);
    return owner ? { kind: 'prove', userId: owner._id, email } : { kind: 'busy' };
  }
  return { kind: 'created', userId };
}

/** Why a link was not made. */
export type LinkRefusal = 'taken' | 'already-linked';

/** Links the provider account to the person; the refusal when it is someone else's, or they have one. */
export async function link(
  provider: UpstreamProvider,
  person: Pick<UpstreamPerson, 'subject' | 'email'>,
  userId: string,
  now: Date,
): Promise<LinkRefusal | null> {
  const existing = await linksDao.find(provider.id, person.subject);
  if (existing) return existing.userId === userId ? null : 'taken';
  try {
    await linksDao.insert({ provider: provider.id, subject: person.subject, userId, email: person.email, linkedAt: now });
    return null;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    const winner = await linksDao.find(provider.id, person.subject);
    return winner?.userId === userId ? null : winner ? 'taken' : 'already-linked';
  }
}

export interface LinkedProviderView {
  id: string;
  name: string;
  /** The provider address shown beside it, when linked. */
  email?: string;
  linked: boolean;
}

/** Every configured provider, and which the person has linked. */
export async function linkedProviders(providers: readonly UpstreamProvider[], userId: string): Promise<LinkedProviderView[]> {
  if (providers.length === 0) return [];
  const links = await linksDao.listForUser(userId);
  return providers.map((provider) => {
    const found = links.find((link) => link.provider === provider.id);
    return { id: provider.id, name: provider.name, linked: found !== undefined, email: found?.email };
  });
}

/** A way in besides upstream links: a password, a GitHub account, or a passkey (it signs in alone). */
async function hasOtherWayIn(userId: string): Promise<boolean> {
  if (await usersService.hasDirectWayIn(userId)) return true;
  return (await factorsService.secondFactors(userId))?.passkeys === true;
}

/**
 * Unlinks the provider unless it is the person's last way in (no password, passkey, GitHub account or
 * other link). Two unlinks at once cannot both take the last two: whichever finds none left after its
 * own puts its link back.
 */
export async function unlink(userId: string, providerId: string): Promise<'unlinked' | 'last-way-in' | 'not-linked'> {
  const link = (await linksDao.listForUser(userId)).find((candidate) => candidate.provider === providerId);
  if (!link) return 'not-linked';
  const otherWays = await hasOtherWayIn(userId);
  if (!otherWays && (await linksDao.countForUser(userId)) <= 1) return 'last-way-in';
  if (!(await linksDao.remove(userId, providerId))) return 'not-linked';
  if (!otherWays && (await linksDao.countForUser(userId)) === 0) {
    await linksDao.insert({ provider: link.provider, subject: link.subject, userId, email: link.email, linkedAt: link.linkedAt });
    return 'last-way-in';
  }
  return 'unlinked';
}

/**
 * GitHub's rule (seed 001): the account with the provider's id, its name and picture refreshed, or a
 * new one; never found by email, and an address POST /users would refuse, or another account's, is
 * left off the new one.
 */
export async function arriveWithProviderAccount(provider: ProviderName, person: UpstreamPerson): Promise<Arrival> {
  const account: ProviderAccount = {
    providerId: person.subject,
    email: person.email,
    emailVerified: person.emailVerified,
    firstName: person.firstName,
    lastName: person.lastName,
    avatarUrl: person.picture,
  };
  const existing = await usersService.findIdByProviderAccount(provider, account.providerId);
  if (existing) {
    await usersService.refreshFromProvider(existing, account);
    return { kind: 'known', userId: existing };
  }
  const acceptable = account.email !== undefined && (await signUpService.emailProblem(account.email)) === null;
  const userId = await usersService.createFromProvider(provider, { ...account, email: acceptable ? account.email : undefined });
  return { kind: 'created', userId };
}

/** The person here linked to the provider's account `subject` (an ID-JAG names one), or null. */
export async function linkedUserId(providerId: string, subject: string): Promise<string | null> {
  return (await linksDao.find(providerId, subject))?.userId ?? null;
}
