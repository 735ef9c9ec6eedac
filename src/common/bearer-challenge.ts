// The one builder of RFC 6750 §3 challenges: `WWW-Authenticate: Bearer` with an optional realm, error
// code and description (quotes and backslashes escaped as RFC 7230 quoted-strings need).
const quoted = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

export function bearerChallenge(options: { realm?: string; error?: string; description?: string } = {}): string {
  const parameters = [
    options.realm !== undefined ? `realm=${quoted(options.realm)}` : null,
    options.error !== undefined ? `error=${quoted(options.error)}` : null,
    options.description !== undefined ? `error_description=${quoted(options.description)}` : null,
  ].filter((parameter) => parameter !== null);
  return parameters.length ? `Bearer ${parameters.join(', ')}` : 'Bearer';
}
