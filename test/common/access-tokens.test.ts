import jwt from 'jsonwebtoken';
import { ACCESS_TOKEN_LIFETIME_SECONDS, createAccessTokens } from '../../src/common/access-tokens';

const SECRET = 'a-secret-of-at-least-thirty-two-characters!';
const payload = { userId: 'u1', email: 'a@example.com', permissionFlags: 1, refreshKey: 'rk', credentials: 0 };
const unchanged = async () => 0;

describe('access tokens signed with a KeyObject', () => {
  it('interoperate with the same secret given as a string (HS256, seed claims, 36000 s)', () => {
    const tokens = createAccessTokens(SECRET, unchanged);
    const token = tokens.sign(payload);
    const decoded = jwt.verify(token, SECRET, { algorithms: ['HS256'], complete: true });
    expect(decoded.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(decoded.payload).toMatchObject(payload);
    const claims = decoded.payload as jwt.JwtPayload;
    expect(claims.exp! - claims.iat!).toBe(ACCESS_TOKEN_LIFETIME_SECONDS);

    const fromString = jwt.sign(payload, SECRET, { algorithm: 'HS256', expiresIn: 60 });
    expect(tokens.verify(fromString)).toMatchObject(payload);
  });

  it('signs only the seed claims, whatever else the payload object carries', () => {
    const tokens = createAccessTokens(SECRET, unchanged);
    const token = tokens.sign({ ...payload, isAdmin: true } as typeof payload);
    expect(Object.keys(jwt.decode(token) as object).sort()).toEqual([
      'credentials',
      'email',
      'exp',
      'iat',
      'permissionFlags',
      'refreshKey',
      'userId',
    ]);
  });

  it.each([
    ['another secret', () => jwt.sign(payload, `${SECRET}x`, { algorithm: 'HS256' })],
    ['HS384', () => jwt.sign(payload, SECRET, { algorithm: 'HS384' })],
    ['alg none', () => jwt.sign(payload, '', { algorithm: 'none' })],
    ['an expired token', () => jwt.sign({ ...payload, exp: 1 }, SECRET, { algorithm: 'HS256' })],
    ['a missing claim', () => jwt.sign({ userId: 'u1' }, SECRET, { algorithm: 'HS256' })],
    ['garbage', () => 'garbage'],
  ])('rejects %s', (_case, make) => {
    expect(createAccessTokens(SECRET, unchanged).verify(make())).toBeNull();
  });

  it('counts a token as current only while the user exists with the credentials it was issued under', async () => {
    const stamps = new Map<string, number | null>([['u1', 0]]);
    const tokens = createAccessTokens(SECRET, async (userId) => stamps.get(userId) ?? null);
    const token = tokens.sign(payload);
    expect(await tokens.verifyCurrent(token)).toMatchObject(payload);
    stamps.set('u1', Date.now()); // a new password
    expect(await tokens.verifyCurrent(token)).toBeNull();
    expect(tokens.verify(token)).toMatchObject(payload);
    stamps.set('u1', null); // the account went
    expect(await tokens.verifyCurrent(token)).toBeNull();
  });
});
