// SIGTERM under load: every request in flight completes, new connections are refused, exit code 0.
import http from 'node:http';
import { testDatabaseUriWithName } from '../helpers/db';
import { delay, json, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

let provider: FakeUpstream;
let server: ServerProcess;

beforeAll(async () => {
  provider = await startFakeUpstream(async (req, res) => {
    await delay(600);
    json(res, 200, req.url.pathname.includes('/conditions/') ? { current_observation: { temp_c: 10 } } : { main: { temp: 283.15 } });
  });
  server = await spawnServer({
    MONGODB_URI: testDatabaseUriWithName(),
    OPENWEATHERMAP_URL: `${provider.url}/weather`,
    OPENWEATHERMAP_API_KEY: 'k1',
    WUNDERGROUND_URL: provider.url,
    WUNDERGROUND_API_KEY: 'k2',
  });
}, 90_000);

afterAll(async () => {
  await server.stop();
  await provider.close();
});

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

it('finishes every in-flight request on SIGTERM, refuses new ones and exits 0', async () => {
  const inFlight = Array.from({ length: 20 }, (_, i) => get(`${server.url}/weather/city${i}`));
  // Every request is being handled once both providers have been asked for it (they answer after
  // 600 ms); a fixed wait would not be enough on a busy machine, where a connection whose request
  // has not been read yet counts as idle and is closed by the shutdown.
  for (let waited = 0; provider.requests.length < 40 && waited < 10_000; waited += 20) await delay(20);
  expect(provider.requests.length).toBe(40);
  server.child.kill('SIGTERM');
  await delay(100);
  await expect(get(`${server.url}/hello`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  expect(await Promise.all(inFlight)).toEqual(Array(20).fill(200));
  expect(await server.exited).toBe(0);
}, 30_000);
