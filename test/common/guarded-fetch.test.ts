// The fetcher for addresses someone else chose (a client's jwks_uri): in production only https, only
// public addresses (also when a name resolves to a private one), no redirects, bounded size and time.
import { guardedFetch, GuardedFetchError, isPrivateAddress } from '../../src/common/guarded-fetch';
import { json, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';

const strict = { allowPrivate: false, maxBytes: 1024, timeoutMs: 1000 };
const development = { ...strict, allowPrivate: true };

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) => {
    if (req.url.pathname === '/redirect') return void res.writeHead(302, { Location: '/ok' }).end();
    if (req.url.pathname === '/big') return json(res, 200, { padding: 'x'.repeat(5000) });
    if (req.url.pathname === '/slow') return void setTimeout(() => json(res, 200, {}), 3000);
    json(res, 200, { ok: true });
  });
});
afterAll(() => upstream.close());

it.each([
  '10.1.2.3',
  '172.20.0.1',
  '192.168.1.1',
  '127.0.0.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '::1',
  'fe80::1',
  'fd00::1',
  '::ffff:127.0.0.1',
  'not-an-address',
])('counts %s as private', (address) => expect(isPrivateAddress(address)).toBe(true));

it.each(['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888'])('counts %s as public', (address) => expect(isPrivateAddress(address)).toBe(false));

it('in production refuses http, a private address, and a name that resolves to one, without connecting', async () => {
  const port = new URL(upstream.url).port;
  const before = upstream.requests.length;
  await expect(guardedFetch(`${upstream.url}/ok`, strict)).rejects.toThrow('only https URLs are fetched');
  await expect(guardedFetch(`https://127.0.0.1:${port}/ok`, strict)).rejects.toThrow('a private address');
  await expect(guardedFetch(`https://[::1]:${port}/ok`, strict)).rejects.toThrow('a private address');
  await expect(guardedFetch(`https://localhost:${port}/ok`, strict)).rejects.toThrow(GuardedFetchError);
  await expect(guardedFetch('https://user:pw@example.com/', strict)).rejects.toThrow('only https URLs are fetched');
  expect(upstream.requests.length).toBe(before);
});

it('outside production fetches from loopback over http, but never follows a redirect', async () => {
  expect(JSON.parse(await guardedFetch(`${upstream.url}/ok`, development))).toEqual({ ok: true });
  await expect(guardedFetch(`${upstream.url}/redirect`, development)).rejects.toThrow('status 302');
});

it('stops at the size and time limits', async () => {
  await expect(guardedFetch(`${upstream.url}/big`, development)).rejects.toThrow(GuardedFetchError);
  const started = Date.now();
  await expect(guardedFetch(`${upstream.url}/slow`, development)).rejects.toThrow(GuardedFetchError);
  expect(Date.now() - started).toBeLessThan(2500);
});
