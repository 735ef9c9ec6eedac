// The one builder of RFC 6750 §3 challenges, `WWW-Authenticate: Bearer`, and of RFC 9449 §7.1's
// `WWW-Authenticate: DPoP`: an optional realm, error code and description, the scope a request
// needs (RFC 6750 §3), where the resource's metadata is (RFC 9728 §5.1), and for DPoP the
// algorithms it takes (quotes and backslashes escaped as RFC 7230 quoted-strings need).
const quoted = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

interface ChallengeOptions {
  realm?: string;
  error?: string;
  description?: string;
  scope?: string;
  resourceMetadata?: string;
}

function challenge(scheme: string, options: ChallengeOptions & { algs?: readonly string[] }): string {
  const parameters = [
    options.realm !== undefined ? `realm=${quoted(options.realm)}` : null,
    options.error !== undefined ? `error=${quoted(options.error)}` : null,
    options.description !== undefined ? `error_description=${quoted(options.description)}` : null,
    options.scope !== undefined ? `scope=${quoted(options.scope)}` : null,
    options.resourceMetadata !== undefined ? `resource_metadata=${quoted(options.resourceMetadata)}` : null,
    options.algs !== undefined ? `algs=${quoted(options.algs.join(' '))}` : null,
  ].filter((parameter) => parameter !== null);
  return parameters.length ? `${scheme} ${parameters.join(', ')}` : scheme;
}

export const bearerChallenge = (options: ChallengeOptions = {}): string => challenge('Bearer', options);

export const dpopChallenge = (options: ChallengeOptions & { algs: readonly string[] }): string => challenge('DPoP', options);
