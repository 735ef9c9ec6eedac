// The console's lists at scale (issue 38; issue 54, item 3): people and applications written straight
// into the bench database in steps (1,000 people and 100 applications, then ten and a hundred times
// as many), and at each step the admin API's search and paging asked one request at a time with an
// operator client's token. Each row is the median of five requests: where the embedded engine, which
// reads a list's whole collection, stops serving them well (docs/operations.md, "Lists at size").
import mongoose from 'mongoose';
import { sha256 } from '../src/common/crypto';

const STEPS = [
  { people: 1_000, applications: 100 },
  { people: 10_000, applications: 1_000 },
  { people: 100_000, applications: 10_000 },
];
const BATCH = 5_000;
const TRIES = 5;
const NAMES = ['ada', 'grace', 'alan', 'linus', 'ken', 'dennis', 'barbara', 'frances', 'margaret', 'edsger'];

type Report = (scenario: string, figure: string, goal: string, met: boolean | null, extra?: string) => void;

async function fill(collection: string, from: number, to: number, make: (n: number) => Record<string, unknown>): Promise<void> {
  const target = mongoose.connection.collection(collection);
  for (let start = from; start < to; start += BATCH) {
    await target.insertMany(
      Array.from({ length: Math.min(BATCH, to - start) }, (_, i) => make(start + i)),
      { ordered: false },
    );
  }
}

async function median(ask: () => Promise<Response>): Promise<{ ms: number; status: number }> {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < TRIES; i++) {
    const start = process.hrtime.bigint();
    const res = await ask();
    await res.arrayBuffer();
    status = res.status;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { ms: times.sort((a, b) => a - b)[Math.floor(TRIES / 2)], status };
}

const person = (now: Date) => (n: number) => ({
  _id: `p${String(n).padStart(7, '0')}`,
  email: `${NAMES[n % NAMES.length]}${n}@example.com`,
  firstName: NAMES[(n * 7) % NAMES.length],
  lastName: `Person${n}`,
  nameKeys: [NAMES[(n * 7) % NAMES.length], `person${n}`],
  uid: 1_000_000 + n,
  permissionFlags: 1,
  password: 'not a hash: these people never sign in',
  createdAt: now,
});

const application = (now: Date) => (n: number) => ({
  _id: `a${String(n).padStart(6, '0')}`,
  name: `Application ${n}`,
  nameKey: `application ${n}`,
  website: 'https://app.example.com',
  redirectUri: 'https://app.example.com/cb',
  grants: ['authorization_code'],
  createdAt: now,
});

export async function consoleScale(uri: string, port: number, report: Report): Promise<void> {
  const now = new Date();
  await mongoose.connect(uri);
  const secret = 'bench-operator-secret';
  await mongoose.connection.collection('oauth_clients').insertOne({
    _id: 'bench-operator',
    secretHash: sha256(secret),
    name: 'Bench operator',
    nameKey: 'bench operator',
    website: 'https://ops.example.com',
    redirectUri: 'https://ops.example.com/cb',
    grants: ['client_credentials'],
    operatorAccess: true,
    createdAt: now,
  } as never);
  await mongoose.disconnect();
  const base = `http://127.0.0.1:${port}`;
  const issued = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'bench-operator', client_secret: secret, scope: 'admin' }),
  });
  const { access_token: token } = (await issued.json()) as { access_token: string };
  const ask = (path: string) => () => fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  let written = { people: 0, applications: 0 };
  for (const step of STEPS) {
    await mongoose.connect(uri);
    await fill('users', written.people, step.people, person(now));
    await fill('oauth_clients', written.applications, step.applications, application(now));
    await mongoose.disconnect();
    written = step;
    const half = (count: number, width: number, prefix: string) => `${prefix}${String(count / 2).padStart(width, '0')}`;
    const rows: [string, string][] = [
      ['people, first page', '/admin/api/people?limit=100'],
      ['people, a page half way', `/admin/api/people?limit=100&after=${half(step.people, 7, 'p')}`],
      ['people, search by email start', `/admin/api/people?q=grace${step.people / 2}`],
      ['people, search by name start', `/admin/api/people?q=person${step.people - 1}`],
      ['applications, first page', '/admin/api/applications?limit=100'],
      ['applications, a page half way', `/admin/api/applications?limit=100&after=${half(step.applications, 6, 'a')}`],
      ['applications, search by name start', `/admin/api/applications?q=application ${step.applications - 1}`],
    ];
    for (const [name, path] of rows) {
      const { ms, status } = await median(ask(path));
      report(
        `console, ${step.people} people: ${name}`,
        `${ms.toFixed(0)} ms`,
        '< 200 ms',
        status === 200 && ms < 200,
        `${step.people} people, ${step.applications} applications; HTTP ${status}`,
      );
    }
  }
}
