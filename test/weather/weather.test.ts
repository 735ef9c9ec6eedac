import request from 'supertest';
import { createApp } from '../../src/app';
import { testApp, testConfig } from '../helpers/app';
import { capturingLogger } from '../helpers/logs';
import { delay, json, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream';

const OWM_KEY = 'owm-secret-key-1234';
const WU_KEY = 'wu-secret-key-5678';

let owm: FakeUpstream;
let wu: FakeUpstream;

const envFor = (overrides: Record<string, string> = {}) => ({
  OPENWEATHERMAP_URL: `${owm.url}/data/2.5/weather`,
  OPENWEATHERMAP_API_KEY: OWM_KEY,
  WUNDERGROUND_URL: wu.url,
  WUNDERGROUND_API_KEY: WU_KEY,
  WEATHER_TIMEOUT_MS: '1000',
  ...overrides,
});
const weatherApp = (overrides: Record<string, string> = {}) => testApp(envFor(overrides));

function answerNormally(owmKelvin = 300, wuCelsius = 20, delayMs = 0) {
  owm.handle(async (_req, res) => {
    await delay(delayMs);
    json(res, 200, { main: { temp: owmKelvin } });
  });
  wu.handle(async (_req, res) => {
    await delay(delayMs);
    json(res, 200, { current_observation: { temp_c: wuCelsius } });
  });
}

beforeAll(async () => {
  [owm, wu] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
});
afterAll(() => Promise.all([owm.close(), wu.close()]));
beforeEach(() => {
  owm.requests.length = 0;
  wu.requests.length = 0;
  answerNormally();
});

describe('GET /hello', () => {
  it('answers 200 with the plain text hello!', async () => {
    const res = await request(weatherApp()).get('/hello').expect(200);
    expect(res.text).toBe('hello!');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('carries a strong ETag, and answers 304 to a client that has it', async () => {
    const { etag } = (await request(weatherApp()).get('/hello').expect(200)).headers;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    const again = await request(weatherApp()).get('/hello').set('If-None-Match', etag).expect(304);
    expect(again.text).toBe('');
  });
});

describe('GET /weather/:city', () => {
  it('answers with the mean in kelvin of both providers, the city and the time taken', async () => {
    const res = await request(weatherApp()).get('/weather/London').expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ city: 'London', temp: (300 + (20 + 273.15)) / 2, took: expect.stringMatching(/^\d+\.\dms$/) });
  });

  it('asks each provider in its own shape, with its key', async () => {
    await request(weatherApp()).get('/weather/London').expect(200);
    expect(owm.requests).toHaveLength(1);
    expect(owm.requests[0].url.pathname).toBe('/data/2.5/weather');
    expect(Object.fromEntries(owm.requests[0].url.searchParams)).toEqual({ APPID: OWM_KEY, q: 'London' });
    expect(wu.requests).toHaveLength(1);
    expect(wu.requests[0].rawUrl).toBe(`/api/${WU_KEY}/conditions/q/London.json`);
  });

  it('queries both providers at the same time: each is asked before either answers', async () => {
    // Each provider answers only once both were asked: asked one after the other, the first would
    // wait past WEATHER_TIMEOUT_MS (1 s) and the request would fail. Order, not time.
    const events: string[] = [];
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => (release = resolve));
    const meet = async (name: string) => {
      events.push(`${name} asked`);
      if (events.length === 2) release();
      await bothAsked;
      events.push(`${name} answers`);
    };
    owm.handle(async (_req, res) => {
      await meet('owm');
      json(res, 200, { main: { temp: 300 } });
    });
    wu.handle(async (_req, res) => {
      await meet('wu');
      json(res, 200, { current_observation: { temp_c: 20 } });
    });
    const res = await request(weatherApp()).get('/weather/Paris');
    release(); // a provider still waiting (had they been asked in turn) answers now
    expect(res.status).toBe(200);
    expect(events.slice(0, 2).sort()).toEqual(['owm asked', 'wu asked']);
  });

  it.each([
    ['New York', 'New York', 'New%20York'],
    ['São Paulo', 'São Paulo', 'S%C3%A3o%20Paulo'],
    ['a/b', 'a/b', 'a%2Fb'],
    ['..', '..', '..'],
    ['what?', 'what?', 'what%3F'],
    ['#hash', '#hash', '%23hash'],
    ['100%', '100%', '100%25'],
  ])('encodes the city %j safely for both providers', async (city, decoded, encodedSegment) => {
    const res = await request(weatherApp())
      .get(`/weather/${encodeURIComponent(city)}`)
      .expect(200);
    expect(res.body.city).toBe(decoded);
    expect(owm.requests[0].url.searchParams.get('q')).toBe(decoded);
    expect(owm.requests[0].url.pathname).toBe('/data/2.5/weather');
    expect(wu.requests[0].rawUrl).toBe(`/api/${WU_KEY}/conditions/q/${encodedSegment}.json`);
  });

  it('answers 400 in plain text for a city over 100 characters, asking no provider', async () => {
    const res = await request(weatherApp())
      .get(`/weather/${'x'.repeat(101)}`)
      .expect(400);
    expect(res.text).toBe('city must be 1 to 100 characters');
    expect(owm.requests).toHaveLength(0);
  });

  describe('when a provider fails', () => {
    const cases: [string, () => void, string][] = [
      [
        'answers 503',
        () => owm.handle((_req, res) => json(res, 503, { message: 'down' })),
        'weather provider openweathermap answered with HTTP status 503',
      ],
      ['answers 401', () => wu.handle((_req, res) => json(res, 401, {})), 'weather provider wunderground answered with HTTP status 401'],
      [
        'has no temperature',
        () => owm.handle((_req, res) => json(res, 200, { main: {} })),
        'weather provider openweathermap answered without a numeric main.temp',
      ],
      [
        'sends a non-numeric temperature',
        () => wu.handle((_req, res) => json(res, 200, { current_observation: { temp_c: 'warm' } })),
        'weather provider wunderground answered without a numeric current_observation.temp_c',
      ],
      [
        'sends a numeric string',
        () => wu.handle((_req, res) => json(res, 200, { current_observation: { temp_c: '20' } })),
        'weather provider wunderground answered without a numeric current_observation.temp_c',
      ],
      [
        'sends HTML',
        () =>
          owm.handle((_req, res) => {
            res.writeHead(200, { 'Content-Type': 'text/html' });
            res.end('<html>oops</html>');
          }),
        'weather provider openweathermap answered with data that is not JSON',
      ],
      [
        'hangs up',
        () =>
          wu.handle((_req, res) => {
            res.destroy();
          }),
        'weather provider wunderground could not be reached (ECONNRESET)',
      ],
      [
        'is too slow',
        () =>
          owm.handle(async (_req, res) => {
            await delay(1500);
            json(res, 200, { main: { temp: 1 } });
          }),
        'weather provider openweathermap did not answer within 1000 ms',
      ],
    ];

    it.each(cases)('answers 500 in plain text naming the provider when it %s', async (_case, arrange, message) => {
      arrange();
      const res = await request(weatherApp()).get('/weather/Oslo').expect(500);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.text).toBe(message);
      expect(res.text).not.toContain(OWM_KEY);
      expect(res.text).not.toContain(WU_KEY);
    });

    it('answers 500 naming the provider when it cannot be reached at all', async () => {
      const closed = await startFakeUpstream();
      await closed.close();
      const res = await request(weatherApp({ WUNDERGROUND_URL: closed.url }))
        .get('/weather/Oslo')
        .expect(500);
      expect(res.text).toBe('weather provider wunderground could not be reached (ECONNREFUSED)');
    });

    it.each([
      ['OPENWEATHERMAP_API_KEY', 'weather provider openweathermap has no API key (set OPENWEATHERMAP_API_KEY)'],
      ['WUNDERGROUND_API_KEY', 'weather provider wunderground has no API key (set WUNDERGROUND_API_KEY)'],
    ])('answers 500 when %s is missing', async (variable, message) => {
      const res = await request(weatherApp({ [variable]: '' }))
        .get('/weather/Oslo')
        .expect(500);
      expect(res.text).toBe(message);
    });

    it('answers as soon as one fails, aborts the slower request and leaves no unhandled rejection', async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        let slowerAnswered = false;
        owm.handle((_req, res) => json(res, 500, {}));
        wu.handle(async (_req, res) => {
          await delay(800);
          slowerAnswered = true;
          json(res, 200, { current_observation: { temp_c: 1 } });
        });
        await request(weatherApp()).get('/weather/Rome').expect(500);
        // The answer came before the slower provider's (order, not a time bound).
        expect(slowerAnswered).toBe(false);
        expect(await wu.requests[0].abandoned).toBe(true);
        await delay(900);
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });

    it('never writes an API key to the log', async () => {
      const { logger, lines } = capturingLogger();
      const config = testConfig({ ...envFor(), LOG_LEVEL: 'trace' });
      const app = createApp({ config, logger });
      owm.handle((_req, res) => json(res, 500, {}));
      await request(app).get('/weather/Rome').expect(500);
      answerNormally();
      await request(app).get('/weather/Rome').expect(200);
      const log = lines.join('');
      expect(lines.length).toBeGreaterThan(0);
      expect(log).not.toContain(OWM_KEY);
      expect(log).not.toContain(WU_KEY);
    });
  });
});

describe('GET /weather/:city with overflowing readings', () => {
  it('answers 500 in plain text when the mean is not a finite number', async () => {
    answerNormally(1e308, 1e308);
    const res = await request(weatherApp()).get('/weather/Overflow').expect(500);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('weather provider openweathermap and wunderground returned temperatures too large to average');
  });
});
