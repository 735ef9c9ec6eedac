// The console's lists at scale (issue 38): 100,000 people and 10,000 applications written straight
// into the bench database, then the admin API's search and paging asked one request at a time with an
// operator client's token. Each row is the median of five requests.
import mongoose from 'mongoose';
import { sha256 } from '../src/common/crypto';

const PEOPLE = 100_000;
const APPLICATIONS = 10_000;
const BATCH = 5_000;
const TRIES = 5;
const NAMES = ['ada', 'grace', 'alan', 'linus', 'ken', 'dennis', 'barbara', 'frances', 'margaret', 'edsger'];

type Report = (scenario: string, figure: string, goal: string, met: boolean | null, extra?: string) => void;

async function fill(collection: string, count: number, make: (n: number) => Record<string, unknown>): Promise<void> {
  const target = mongoose.connection.collection(collection);
  for (let start = 0; start < count; start += BATCH) {
    await target.insertMany(
      Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => make(start + i)),
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

export async function consoleScale(uri: string, port: number, report: Report): Promise<void> {
  await mongoose.connect(uri);
  const now = new Date();
  await fill('users', PEOPLE, (n) => ({
    _id: `p${String(n).padStart(7, '0')}`,
    email: `${NAMES[n % NAMES.length]}${n}@example.com`,
    firstName: NAMES[(n * 7) % NAMES.length],
    lastName: `Person${n}`,
    uid: 1_000_000 + n,
    permissionFlags: 1,
    password: 'not a hash: these people never sign in',
    createdAt: now,
  }));
  await fill('oauth_clients', APPLICATIONS, (n) => ({
    _id: `a${String(n).padStart(6, '0')}`,
    name: `Application ${n}`,
    website: 'https://app.example.com',
    redirectUri: 'https://app.example.com/cb',
    grants: ['authorization_code'],
    createdAt: now,
  }));
  const secret = 'bench-operator-secret';
  await mongoose.connection.collection('oauth_clients').insertOne({
    _id: 'bench-operator',
    secretHash: sha256(secret),
    name: 'Bench operator',
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
  const rows: [string, string][] = [
    ['people, first page', '/admin/api/people?limit=100'],
    ['people, a page half way', '/admin/api/people?limit=100&after=p0050000'],
    ['people, search by email start', '/admin/api/people?q=grace5000'],
    ['people, search by name start', '/admin/api/people?q=person9999'],
    ['applications, first page', '/admin/api/applications?limit=100'],
    ['applications, a page half way', '/admin/api/applications?limit=100&after=a005000'],
    ['applications, search by name start', '/admin/api/applications?q=application 999'],
  ];
  for (const [name, path] of rows) {
    const { ms, status } = await median(ask(path));
    report(
      `console at scale: ${name}`,
      `${ms.toFixed(0)} ms`,
      '< 200 ms',
      status === 200 && ms < 200,
      `${PEOPLE} people, ${APPLICATIONS} applications; HTTP ${status}`,
    );
  }
}
