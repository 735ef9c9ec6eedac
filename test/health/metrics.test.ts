// GET /metrics: who may read it, and that its numbers follow what the server did.
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { passwordGrant } from '../helpers/oauth';

useTestDatabase();

const TOKEN = 'metrics-token-that-is-at-least-32-characters';
const app = testApp({ METRICS_TOKEN: TOKEN });

async function scrape(): Promise<string> {
  const res = await request(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

/** The value of one sample, 0 when it is not there yet. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('GET /metrics on the main port', () => {
  it('is not served without METRICS_TOKEN', async () => {
    await request(testApp()).get('/metrics').expect(404);
  });

  it('asks for the token, and refuses a wrong one or another scheme', async () => {
    const missing = await request(app).get('/metrics').expect(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    await request(app).get('/metrics').set('Authorization', 'Bearer not-the-token').expect(401);
    await request(app)
      .get('/metrics')
      .set('Authorization', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`)
      .expect(401);
    expect(missing.text).toBe('');
  });

  it('counts requests by route pattern and status, and times them; unknown paths share one label', async () => {
    const user = await createUser();
    const series = `http_requests_total{method="GET",route="/users/:userId",status="200"}`;
    const before = sample(await scrape(), series);
    await request(app).get(`/users/${user.id}`).expect(200);
    await request(app).get(`/users/${user.id}`).expect(200);
    await request(app).get(`/no/such/${user.id}`).expect(404);
    const after = await scrape();
    expect(sample(after, series)).toBe(before + 2);
    expect(sample(after, `http_requests_total{method="GET",route="unmatched",status="404"}`)).toBeGreaterThanOrEqual(1);
    expect(sample(after, `http_request_duration_seconds_count{method="GET",route="/users/:userId"}`)).toBe(before + 2);
    expect(after).toContain('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/users/:userId"}');
    expect(after).not.toContain(user.id);
  });

  it('names the static documents by their paths, answered ahead of the routers or not (304s too)', async () => {
    const paths = ['/hello', '/.well-known/openid-configuration', '/oauth/jwks'];
    const series = (path: string, status: number) => `http_requests_total{method="GET",route="${path}",status="${status}"}`;
    const before = await scrape();
    for (const path of paths) {
      const { etag } = (await request(app).get(path).expect(200)).headers;
      await request(app).get(path).set('If-None-Match', etag).expect(304);
    }
    const after = await scrape();
    for (const path of paths) {
      expect(sample(after, series(path, 200))).toBe(sample(before, series(path, 200)) + 1);
      expect(sample(after, series(path, 304))).toBe(sample(before, series(path, 304)) + 1);
    }
  });

  it('counts tokens issued by grant type and failed password checks', async () => {
    const before = await scrape();
    await passwordGrant(app);
    const user = await createUser();
    await request(app).post('/auth').send({ email: user.email, password: 'wrong-password' }).expect(400);
    const after = await scrape();
    const grant = 'oauth_tokens_issued_total{grant_type="password"}';
    expect(sample(after, grant)).toBe(sample(before, grant) + 1);
    expect(sample(after, 'sign_in_failures_total')).toBe(sample(before, 'sign_in_failures_total') + 1);
  });

  it("reports the database pool and Node's event-loop lag", async () => {
    const text = await scrape();
    expect(sample(text, 'mongodb_pool_connections{state="open"}')).toBeGreaterThan(0);
    expect(text).toMatch(/^mongodb_pool_connections\{state="in_use"\} \d+$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });
});
