// The Authorization header, parsed in one place. Scheme names are case-insensitive (RFC 7235 §2.1).
const MAX_HEADER_LENGTH = 4096;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `scheme` lower-cased and the single credentials word after it; null for an absent or oversized header. */
export function parseAuthorization(header: string | undefined): { scheme: string; credentials: string | undefined } | null {
  if (!header || header.length > MAX_HEADER_LENGTH) return null;
  const [scheme, credentials, ...rest] = header.trim().split(/ +/);
  return { scheme: scheme.toLowerCase(), credentials: rest.length === 0 ? credentials : undefined };
}

/** The token of `Authorization: Bearer <token>`, '' for a Bearer header without one, null for another scheme. */
export function bearerToken(header: string | undefined): string | null {
  const parsed = parseAuthorization(header);
  if (parsed?.scheme !== 'bearer') return null;
  return parsed.credentials ?? '';
}

/** The token of `Authorization: DPoP <token>` (RFC 9449 §7.1), '' for a DPoP header without one, null for another scheme. */
export function dpopToken(header: string | undefined): string | null {
  const parsed = parseAuthorization(header);
  if (parsed?.scheme !== 'dpop') return null;
  return parsed.credentials ?? '';
}

/** `Authorization: Basic base64(name:password)` as RFC 7617 has it (raw); null when absent or malformed. */
export function basicCredentials(header: string | undefined): { name: string; password: string } | null {
  const parsed = parseAuthorization(header);
  if (parsed?.scheme !== 'basic' || !parsed.credentials || !BASE64.test(parsed.credentials)) return null;
  const decoded = Buffer.from(parsed.credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * OAuth client credentials in Basic: RFC 6749 §2.3.1 form-encodes the id and the secret before they
 * go in, so `%2D` is `-` and `+` is a space. null when absent, malformed or not decodable.
 */
export function basicClientCredentials(header: string | undefined): { name: string; password: string } | null {
  const raw = basicCredentials(header);
  if (!raw) return null;
  const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
  try {
    return { name: formDecode(raw.name), password: formDecode(raw.password) };
  } catch {
    return null;
  }
}
