// Scopes: `read` (the default) and `write`. Anything else is invalid_scope.
export const SCOPES = ['read', 'write'] as const;
export const DEFAULT_SCOPE = ['read'];

/** The scope to grant for a requested one (absent means the default), or null when it is invalid. */
export function grantedScope(requested: readonly string[] | undefined): string[] | null {
  if (!requested || requested.length === 0) return [...DEFAULT_SCOPE];
  const unique = [...new Set(requested)];
  return unique.every((scope) => (SCOPES as readonly string[]).includes(scope)) ? unique : null;
}
