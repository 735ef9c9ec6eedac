// The fetcher for addresses someone else chose (a client's jwks_uri): in production only https, only
// public addresses (also when a name resolves to a private one), no redirects, bounded size and time.
import { networkInterfaces } from 'node:os';
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
  // The documentation and benchmarking ranges, 6to4 and the IETF's own: not reachable in the world.
  '192.0.2.10',
  '198.51.100.10',
  '203.0.113.10',
  '192.88.99.1',
  '2001:db8::1',
  '2001:2::1',
  '2002:c0a8:101::1',
  '100::1',
  'fec0::1',
  '64:ff9b:1::a00:1',
  'not-an-address',
])('counts %s as private', (address) => expect(isPrivateAddress(address)).toBe(true));

it.each(['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888'])('counts %s as public', (address) => expect(isPrivateAddress(address)).toBe(false));

it('counts this host’s own addresses as private, whatever their range', () => {
  const own = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .map((entry) => entry.address);
  expect(own.length).toBeGreaterThan(0);
  for (const address of own) expect(isPrivateAddress(address)).toBe(true);
});

it('never goes through a proxy that HTTP_PROXY or HTTPS_PROXY names: the address checked is the one fetched', async () => {
  const proxy = await startFakeUpstream((_req, res) => json(res, 200, { proxied: true }));
  const saved = { http: process.env.HTTP_PROXY, https: process.env.HTTPS_PROXY };
  process.env.HTTP_PROXY = proxy.url;
  process.env.HTTPS_PROXY = proxy.url;
  try {
    expect(JSON.parse(await guardedFetch(`${upstream.url}/ok`, development))).toEqual({ ok: true });
    expect(proxy.requests).toHaveLength(0);
  } finally {
    for (const [name, value] of [
      ['HTTP_PROXY', saved.http],
      ['HTTPS_PROXY', saved.https],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await proxy.close();
  }
});

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
