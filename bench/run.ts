// `npm run bench`: starts a database of its own and the built server, loads each scenario with
// autocannon from a separate process on 127.0.0.1, and prints every figure as a ratio against
// baselines measured in the same run. Bounded: each scenario runs a fixed number of seconds.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mongoose from 'mongoose';
import { loadCatalogue } from '../src/catalogue/catalogue.service';
import { startEmbeddedDatabase } from '../src/db/embedded';
import { connectDatabase } from '../src/db/mongoose';
import { findFreePort, waitForPort } from '../src/db/ports';

const ROOT = path.resolve(__dirname, '..');
const TS_NODE = ['-r', 'ts-node/register/transpile-only'];
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;

interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

interface Row extends Figures {
  name: string;
  baseline: string;
}

interface Target {
  port: number;
  stop(): Promise<void>;
}

async function startProcess(args: string[], env: Record<string, string>): Promise<Target> {
  const port = await findFreePort();
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForPort(port, 60_000);
  return {
    port,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const startBaseline = (kind: 'http' | 'express') => startProcess([...TS_NODE, 'bench/baseline-servers.ts', kind], {});

interface LoadRequest {
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
}

/** Runs a load script (bench/load.ts or bench/bare-get.ts) in a process of its own. */
async function runLoadScript<T>(script: string, port: number, request: LoadRequest, seconds: number): Promise<T> {
  const options = {
    ...request,
    url: `http://127.0.0.1:${port}${request.path}`,
    connections: request.connections ?? CONNECTIONS,
    durationSeconds: seconds,
  };
  const { stdout } = await promisify(execFile)(process.execPath, [...TS_NODE, script, JSON.stringify(options)], {
    cwd: ROOT,
    timeout: (seconds + 60) * 1000,
  });
  return JSON.parse(stdout) as T;
}

/** A short warm-up (JIT, connection pools, caches), then the measured run. */
async function measure(port: number, request: LoadRequest, script = 'bench/load.ts'): Promise<Figures> {
  await runLoadScript(script, port, request, 1);
  return runLoadScript<Figures>(script, port, request, DURATION_SECONDS);
}

const WEATHER_DELAY_MS = 50;
const WEATHER_CONNECTIONS = [1, 10, 50, 100];

/** /weather/:city latency over the providers' fixed delay, beside a bare http.get to the same fake. */
async function weatherRows(serverEnv: Record<string, string>, targets: Target[]): Promise<string[]> {
  const fake = await startProcess([...TS_NODE, 'bench/fake-weather-provider.ts'], { DELAY_MS: String(WEATHER_DELAY_MS) });
  targets.push(fake);
  const server = await startProcess(['dist/server.js'], {
    ...serverEnv,
    OPENWEATHERMAP_URL: `http://127.0.0.1:${fake.port}/data/2.5/weather`,
    OPENWEATHERMAP_API_KEY: 'bench-key',
    WUNDERGROUND_URL: `http://127.0.0.1:${fake.port}`,
    WUNDERGROUND_API_KEY: 'bench-key',
  });
  targets.push(server);
  const over = (ms: number) => (ms - WEATHER_DELAY_MS).toFixed(1);
  const lines = [
    `| connections | /weather req/s | /weather p50 over delay | /weather p99 over delay | bare http.get p50 over delay | bare http.get p99 over delay | non-2xx |`,
    '|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const connections of WEATHER_CONNECTIONS) {
    const weather = await measure(server.port, { path: '/weather/London', connections });
    const bare = await measure(fake.port, { path: '/data/2.5/weather?q=London', connections }, 'bench/bare-get.ts');
    lines.push(
      `| ${connections} | ${weather.requestsPerSecond.toFixed(0)} | ${over(weather.p50)} | ${over(weather.p99)} | ${over(bare.p50)} | ${over(bare.p99)} | ${weather.non2xx + weather.errors} |`,
    );
  }
  return lines;
}

function printTable(rows: Row[]): void {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const lines = [
    '| scenario | req/s | ratio | against | p50 ms | p99 ms | non-2xx |',
    '|---|---:|---:|---|---:|---:|---:|',
    ...rows.map((row) => {
      const base = byName.get(row.baseline);
      const ratio = base && base !== row ? `${((row.requestsPerSecond / base.requestsPerSecond) * 100).toFixed(0)}%` : '';
      return `| ${row.name} | ${row.requestsPerSecond.toFixed(0)} | ${ratio} | ${base && base !== row ? row.baseline : ''} | ${row.p50} | ${row.p99} | ${row.non2xx + row.errors} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'rest-api-bench-'));
  const database = await startEmbeddedDatabase({ engine: 'auto', dataDir, log: (m) => process.stderr.write(`${m}\n`) });
  const uri = `${database.uri}bench`;
  await connectDatabase(uri);
  await mongoose.connection.db!.dropDatabase();
  await loadCatalogue();
  await mongoose.disconnect();

  const serverEnv = {
    MONGODB_URI: uri,
    JWT_SECRET: 'bench-jwt-secret-at-least-32-characters-long',
    SESSION_SECRET: 'bench-session-secret-at-least-32-characters',
    WEATHER_PORT: 'off',
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'info',
  };
  const targets: Target[] = [];
  const rows: Row[] = [];
  try {
    const bareHttp = await startBaseline('http');
    const bareExpress = await startBaseline('express');
    targets.push(bareHttp, bareExpress);
    rows.push({ name: 'node:http hello', baseline: 'node:http hello', ...(await measure(bareHttp.port, { path: '/hello' })) });
    rows.push({ name: 'Express hello', baseline: 'node:http hello', ...(await measure(bareExpress.port, { path: '/hello' })) });

    const cached = await startProcess(['dist/server.js'], { ...serverEnv, CREDENTIAL_CACHE: 'on' });
    const uncached = await startProcess(['dist/server.js'], { ...serverEnv, CREDENTIAL_CACHE: 'off' });
    targets.push(cached, uncached);

    const email = 'bench@example.com';
    const password = 'bench-password';
    await fetch(`http://127.0.0.1:${cached.port}/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const basic = { Authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` };

    rows.push({
      name: 'GET /api/v1/products, Basic, no cache',
      baseline: 'Express hello',
      ...(await measure(uncached.port, { path: '/api/v1/products', headers: basic })),
    });
    rows.push({
      name: 'GET /api/v1/products, Basic, cache',
      baseline: 'GET /api/v1/products, Basic, no cache',
      ...(await measure(cached.port, { path: '/api/v1/products', headers: basic })),
    });

    const weather = await weatherRows(serverEnv, targets);

    process.stdout.write(`\nNode ${process.version}, database ${database.engine}, ${CONNECTIONS} connections, ${DURATION_SECONDS} s per scenario\n\n`);
    printTable(rows);
    process.stdout.write(`\nGET /weather/:city against fake providers answering after ${WEATHER_DELAY_MS} ms (latency in ms)\n\n`);
    process.stdout.write(`${weather.join('\n')}\n`);
  } finally {
    await Promise.all(targets.map((target) => target.stop()));
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
