// Scopes: seed 001's `read` (the default) and `write`, and OpenID Connect's `openid`, `profile`,
// `email` and `offline_access`. Anything else is invalid_scope.
export const SCOPES = ['read', 'write', 'openid', 'profile', 'email', 'offline_access'] as const;
export const DEFAULT_SCOPE = ['read'];

/** The scope to grant for a requested one (absent means the default), or null when it is invalid. */
export function grantedScope(requested: readonly string[] | undefined): string[] | null {
  if (!requested || requested.length === 0) return [...DEFAULT_SCOPE];
  const unique = [...new Set(requested)];
  return unique.every((scope) => (SCOPES as readonly string[]).includes(scope)) ? unique : null;
}
