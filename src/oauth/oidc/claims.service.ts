// Which claims about a person an application receives, and where (OIDC Core §5.3-5.5, docs/oauth.md
// Claims). Scopes release their claims from userinfo whenever an access token is issued, and in the ID
// token only when none is (response_type=id_token); the `claims` parameter asks for single claims,
// for userinfo or for the ID token, and those are released there whatever the response type.
import { rolesOf } from '../../users/users.service';
import type { UserRecord } from '../../users/users.types';
import { PERSON_CLAIMS, SCOPE_DEFINITIONS, scopesReleasing, type Scope } from '../protocol';

/** What the `claims` parameter asked for, by where it goes: claim names this server can release. */
export interface RequestedClaims {
  userinfo: string[];
  id_token: string[];
  /** The ID token's `acr` request (OIDC Core §5.5.1.1): the classes it takes, and whether essential. */
  acr?: { essential: boolean; values: string[] };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The `claims` parameter (OIDC Core §5.5) as the claims it asks for, or why it is invalid. Claims
 * this server does not know are ignored, as §5.5 says; `essential` and `value(s)` are checked for
 * their form and otherwise only hints (nothing here is withheld for want of them).
 */
export function parseClaimsParameter(value: string): RequestedClaims | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return 'claims must be a JSON object';
  }
  if (!isObject(parsed)) return 'claims must be a JSON object';
  const requested: RequestedClaims = { userinfo: [], id_token: [] };
  for (const target of ['userinfo', 'id_token'] as const) {
    const members = parsed[target];
    if (members === undefined || members === null) continue;
    if (!isObject(members)) return `claims.${target} must be an object`;
    for (const [name, request] of Object.entries(members)) {
      if (request !== null && !isObject(request)) return `claims.${target}.${name} must be null or an object`;
      if (isObject(request)) {
        if (request.essential !== undefined && typeof request.essential !== 'boolean')
          return `claims.${target}.${name}.essential must be true or false`;
        if (request.values !== undefined && !Array.isArray(request.values)) return `claims.${target}.${name}.values must be an array`;
      }
      if (PERSON_CLAIMS.includes(name) && name !== 'sub') requested[target].push(name);
      if (target === 'id_token' && name === 'acr' && isObject(request)) {
        const values: unknown[] = [...(Array.isArray(request.values) ? (request.values as unknown[]) : []), request.value];
        requested.acr = { essential: request.essential === true, values: values.filter((value) => typeof value === 'string') };
      }
    }
  }
  return requested;
}

/** Requested claims written back as a `claims` parameter, to travel through the consent form. */
export function claimsParameterOf(requested: RequestedClaims): string {
  const members = (names: string[]) => Object.fromEntries(names.map((name) => [name, null]));
  const idToken: Record<string, unknown> = members(requested.id_token);
  if (requested.acr) idToken.acr = { essential: requested.acr.essential, values: requested.acr.values };
  return JSON.stringify({ userinfo: members(requested.userinfo), id_token: idToken });
}

/** The claims the scopes release, `sub` included when openid is there. */
export function scopeClaims(scope: readonly string[]): string[] {
  return scope.flatMap((value) => (value in SCOPE_DEFINITIONS ? SCOPE_DEFINITIONS[value as Scope].claims : []));
}

/**
 * The scopes' claims that go in every ID token, not only in userinfo: `roles` (docs/oauth.md, Roles),
 * which applications read at sign-in to decide what the person may do.
 */
export function idTokenScopeClaims(scope: readonly string[]): string[] {
  return scope.includes('roles') ? ['roles'] : [];
}

/** The claims the `claims` parameter asks for that the scopes do not release: the consent page names them. */
export function claimsBeyondScope(scope: readonly string[], requested: RequestedClaims | undefined): string[] {
  if (!requested) return [];
  const released = new Set(scopeClaims(scope));
  return [...new Set([...requested.userinfo, ...requested.id_token])].filter((name) => !released.has(name));
}

/** The scopes that would release those claims: consent given before for them covers the request. */
export function scopesForClaims(scope: readonly string[], requested: RequestedClaims | undefined): Scope[] {
  return [...new Set(claimsBeyondScope(scope, requested).flatMap(scopesReleasing))];
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Every claim the record can give, by name; absent when the person has not shared it. */
function everyClaim(user: UserRecord): Record<string, unknown> {
  const shared = user.claims ?? {};
  const name = `${user.firstName ?? ''} ${user.lastName ?? ''}`.trim();
  return {
    ...shared,
    name: name || undefined,
    given_name: user.firstName,
    family_name: user.lastName,
    picture: user.avatarUrl,
    updated_at: user.updatedAt ? seconds(user.updatedAt) : undefined,
    email: user.email,
    // True once a verification link was followed (or GitHub vouched for its primary address);
    // nothing proves a phone number yet.
    email_verified: user.email ? user.emailVerified === true : undefined,
    phone_number_verified: shared.phone_number ? false : undefined,
    roles: rolesOf(user),
  };
}

/** `sub` and the named claims the person has, as a userinfo response or ID token holds them. */
export function personClaims(user: UserRecord, names: Iterable<string>): Record<string, unknown> {
  const all = everyClaim(user);
  const claims: Record<string, unknown> = { sub: user._id };
  for (const name of names) if (name !== 'sub' && all[name] !== undefined) claims[name] = all[name];
  return claims;
}

/** The userinfo response for a token: its scopes' claims and those the `claims` parameter asked for. */
export function userinfoClaims(
  user: UserRecord,
  scope: readonly string[],
  requested: RequestedClaims | undefined,
): Record<string, unknown> {
  return personClaims(user, [...scopeClaims(scope), ...(requested?.userinfo ?? [])]);
}
