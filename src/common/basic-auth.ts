// Parses `Authorization: Basic base64(name:password)`; null for an absent or malformed header.
const MAX_HEADER_LENGTH = 2048;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function parseBasicAuthorization(header: string | undefined): { name: string; password: string } | null {
  if (!header || header.length > MAX_HEADER_LENGTH) return null;
  const [scheme, encoded, ...rest] = header.trim().split(/ +/);
  if (scheme.toLowerCase() !== 'basic' || !encoded || rest.length > 0 || !BASE64.test(encoded)) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
