// Issue 54: the hot endpoints with 100,000 people, 10,000 applications and 1,000,000 tokens (and
// sessions, consents and events in proportion) beside the same load on a database that holds only
// what the load uses. Records are written straight into the database as the server writes them (their
// keys, families and slots included) and the migrations are marked done, so the server reads them as
// its own. Every request of a row is another person, token or client where the row says so, taken in
// turn from a list no request uses twice (a refresh token is spent), so no cache answers in place of
// the database unless the row repeats on purpose. On the big database the rows use its newest
// people, tokens and sessions (the end of each collection): the ones in use, and where a lookup that
// reads its way through the collection would cost the most.
import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import mongoose from 'mongoose';
import { sha256 } from '../src/common/crypto';
import { configurePasswordHashing, hashPassword } from '../src/common/passwords';
import { loadConfig } from '../src/config';
import { connectDatabase } from '../src/db/mongoose';
// The models the server creates indexes for: registered by importing the stores (as the server does).
import '../src/stores';
import '../src/wiring';
import '../src/migrations';

export interface Sizes {
  people: number;
  applications: number;
  tokens: number;
  /** Events per person (the security activity). */
  eventsPerPerson: number;
}

export const AT_SIZE: Sizes = { people: 100_000, applications: 10_000, tokens: 1_000_000, eventsPerPerson: 5 };
/**
 * The small database: what the loads use and no more. Its tokens belong to as many people and
 * clients as the big database's newest tokens do (20,000 and 10,000), so both rows meet the caches
 * alike and differ only by the data around what they read.
 */
export const LOADED: Sizes = { people: 20_000, applications: 10_000, tokens: 40_000, eventsPerPerson: 5 };
/** How many people, clients and sessions a row takes in turn: the newest of each database. */
const IN_TURN = 1_000;

export const PASSWORD = 'bench-size-password';
export const REDIRECT_URI = 'https://app.example.com/cb';
const BATCH = 2_000;
const YEAR_MS = 365 * 24 * 3600_000;

const personId = (n: number) => `p${String(n).padStart(7, '0')}`;
export const emailOf = (n: number) => `person${n}@example.com`;
export const appId = (n: number) => `app${String(n).padStart(6, '0')}`;
export const secretOf = (n: number) => `bench-secret-${n}`;
/** Token n's family is n >> 1: the even one was rotated (an access token still alive), the odd one is current. */
const familyOf = (n: number) => n >> 1;
const personOfFamily = (f: number, sizes: Sizes) => f % sizes.people;
const appOfFamily = (f: number, sizes: Sizes) => f % sizes.applications;
const derived = (label: string, n: number) => sha256(`${label}-${n}`);
export const accessTokenOf = (n: number) => derived('bench-access', n);
export const refreshTokenOf = (n: number) => `${sha256(accessTokenOf(n))}.${derived('bench-refresh', n)}`;
const sessionIdOf = (n: number) => derived('bench-session', n).slice(0, 32);

/** express-session's signed cookie value (cookie-signature: HMAC-SHA256 in base64 without padding). */
export function sessionCookie(n: number, secret: string): string {
  const sid = sessionIdOf(n);
  const signature = createHmac('sha256', secret).update(sid).digest('base64').replace(/=+$/, '');
  return `sid=${encodeURIComponent(`s:${sid}.${signature}`)}`;
}

/** The anonymous CSRF cookie of the login page (web/csrf.ts) and the token its form carries. */
export function loginCsrf(secret: string): { cookie: string; token: string } {
  // A token of the shape the form's field takes (43 characters of base64url, web/csrf.ts).
  const token = sha256('bench-login-csrf');
  const signature = createHmac('sha256', secret).update(`csrf:${token}`).digest('base64url');
  return { cookie: `csrf=${token}.${signature}`, token };
}

async function fill(collection: string, count: number, make: (n: number) => Record<string, unknown>[]): Promise<void> {
  const target = mongoose.connection.collection(collection);
  let docs: Record<string, unknown>[] = [];
  for (let n = 0; n < count; n++) {
    docs.push(...make(n));
    if (docs.length >= BATCH) {
      await target.insertMany(docs, { ordered: false });
      docs = [];
    }
  }
  if (docs.length > 0) await target.insertMany(docs, { ordered: false });
}

/** Writes a database of these sizes at `uri`; the seconds it took, per collection. */
export async function seed(uri: string, sizes: Sizes): Promise<Record<string, number>> {
  configurePasswordHashing(loadConfig(process.env).passwordHashing);
  const hash = await hashPassword(PASSWORD);
  await connectDatabase(uri);
  await mongoose.connection.db!.dropDatabase();
  // The indexes first, as the server makes them, so every insert pays for them as the server's would.
  await connectDatabase(uri);
  const now = Date.now();
  const seconds: Record<string, number> = {};
  const timed = async (name: string, work: () => Promise<void>) => {
    const start = process.hrtime.bigint();
    await work();
    seconds[name] = Number(process.hrtime.bigint() - start) / 1e9;
  };
  await timed('people', async () => {
    await fill('users', sizes.people, (n) => [
      {
        _id: personId(n),
        uid: n + 1,
        email: emailOf(n),
        password: hash,
        firstName: 'Person',
        lastName: `Number ${n}`,
        nameKeys: ['person', `number ${n}`],
        permissionFlags: 1,
        secondFactor: false,
        updatedAt: new Date(now),
        __v: 0,
      },
    ]);
    await fill('user_keys', sizes.people, (n) => [{ _id: `email:${emailOf(n)}`, userId: personId(n), createdAt: new Date(now) }]);
  });
  await timed('applications', () =>
    fill('oauth_clients', sizes.applications, (n) => [
      {
        _id: appId(n),
        secretHash: sha256(secretOf(n)),
        name: `Application ${n}`,
        nameKey: `application ${n}`,
        website: 'https://app.example.com',
        redirectUri: REDIRECT_URI,
        redirectUris: [REDIRECT_URI],
        grants: ['authorization_code', 'refresh_token', 'password', 'client_credentials'],
        createdAt: new Date(now),
      },
    ]),
  );
  await timed('tokens and their families', () =>
    fill('oauth_tokens', sizes.tokens, (n) => {
      const f = familyOf(n);
      const current = n % 2 === 1;
      const expires = new Date(now + YEAR_MS);
      const token = {
        _id: sha256(accessTokenOf(n)),
        ...(current ? { refreshTokenHash: sha256(refreshTokenOf(n)), refreshTokenExpiresAt: expires } : {}),
        accessTokenExpiresAt: expires,
        scope: ['openid', 'read'],
        clientId: appId(appOfFamily(f, sizes)),
        userId: personId(personOfFamily(f, sizes)),
        familyId: `f${f}`,
        issuedAt: new Date(now - 3600_000),
        authTime: new Date(now - 3600_000),
        amr: ['pwd'],
      };
      return current ? [token, { _id: `family:f${f}`, newest: token._id, until: expires }] : [token];
    }),
  );
  await timed('sessions', () =>
    fill('sessions', sizes.people, (n) => {
      const cookie = { originalMaxAge: null, expires: null, httpOnly: true, path: '/', sameSite: 'lax', secure: false };
      const data = {
        cookie,
        userId: personId(n),
        authTime: now - 60_000,
        amr: ['pwd'],
        oidcSid: derived('bench-oidc-sid', n),
        csrfToken: derived('bench-csrf', n),
        device: 'bench',
        address: '127.0.0.1',
      };
      const slot = `slot:${personId(n)}#0`;
      return [
        {
          _id: sessionIdOf(n),
          data: JSON.stringify(data),
          userId: personId(n),
          expiresAt: new Date(now + YEAR_MS),
          lastSeenAt: new Date(now),
          slot,
        },
        { _id: slot, sid: sessionIdOf(n) },
      ];
    }),
  );
  await timed('consents', () =>
    fill('oauth_grants', sizes.people, (n) => {
      const clientId = appId(n % sizes.applications);
      return [
        {
          _id: `${personId(n)}:${clientId}`,
          userId: personId(n),
          clientId,
          scope: ['openid', 'read'],
          firstGrantedAt: new Date(now),
          lastUsedAt: new Date(now),
        },
      ];
    }),
  );
  await timed('events', () =>
    fill('account_activity', sizes.people * sizes.eventsPerPerson, (n) => [
      {
        _id: `e${n}`,
        userId: personId(n % sizes.people),
        kind: 'signed-in',
        at: new Date(now - n * 1000),
        address: '127.0.0.1',
        detail: 'password, bench',
      },
    ]),
  );
  await mongoose.connection.collection('migrations').insertMany(
    ['user-keys', 'token-families', 'expiry-journal', 'owner-lists', 'client-name-keys'].map((name) => ({
      _id: name as never,
      doneAt: new Date(now),
    })),
  );
  await mongoose.disconnect();
  return seconds;
}

export interface Variant {
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** A row: the request every variant changes, and the variants for a database of these sizes. */
export interface SizeRow {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  connections?: number;
  okStatus?: number;
  variants(sizes: Sizes, sessionSecret: string): Variant[];
}

/** The newest `count` of `total`: the last ones written. */
const newest = (count: number, total: number) => Array.from({ length: count }, (_, i) => total - count + i);
/** Person tokens in turn, the newest: the odd ones are current, with a refresh token; each used once. */
const tokenNumbers = (sizes: Sizes) => newest(LOADED.tokens, sizes.tokens).filter((n) => n % 2 === 1);
const clientOfToken = (n: number, sizes: Sizes) => appOfFamily(familyOf(n), sizes);

export function sizeRows(passwordConnections: number): SizeRow[] {
  return [
    {
      name: 'sign-in, POST /auth (another person each time)',
      method: 'POST',
      path: '/auth',
      headers: { 'Content-Type': 'application/json' },
      connections: passwordConnections,
      okStatus: 201,
      variants: (sizes) => newest(IN_TURN, sizes.people).map((n) => ({ body: JSON.stringify({ email: emailOf(n), password: PASSWORD }) })),
    },
    {
      name: 'sign-in, POST /login (another person each time)',
      method: 'POST',
      path: '/login',
      headers: FORM,
      connections: passwordConnections,
      okStatus: 303,
      variants: (sizes, secret) => {
        const csrf = loginCsrf(secret);
        return newest(IN_TURN, sizes.people).map((n) => ({
          headers: { Cookie: csrf.cookie },
          body: form({ _csrf: csrf.token, email: emailOf(n), password: PASSWORD }),
        }));
      },
    },
    {
      name: 'password grant (another person each time)',
      method: 'POST',
      path: '/oauth/token',
      headers: FORM,
      connections: passwordConnections,
      variants: (sizes) =>
        newest(IN_TURN, sizes.people).map((n) => {
          const app = n % sizes.applications;
          return {
            body: form({
              grant_type: 'password',
              client_id: appId(app),
              client_secret: secretOf(app),
              username: emailOf(n),
              password: PASSWORD,
              scope: 'openid read',
            }),
          };
        }),
    },
    {
      name: 'token endpoint, client_credentials (the newest 1,000 clients in turn)',
      method: 'POST',
      path: '/oauth/token',
      headers: FORM,
      variants: (sizes) =>
        newest(IN_TURN, sizes.applications).map((n) => ({
          body: form({ grant_type: 'client_credentials', client_id: appId(n), client_secret: secretOf(n) }),
        })),
    },
    {
      name: 'introspection (another token each time)',
      method: 'POST',
      path: '/oauth/introspect',
      headers: FORM,
      variants: (sizes) =>
        tokenNumbers(sizes).map((n) => {
          const app = clientOfToken(n, sizes);
          return { body: form({ token: accessTokenOf(n), client_id: appId(app), client_secret: secretOf(app) }) };
        }),
    },
    {
      name: 'userinfo (another token each time)',
      method: 'GET',
      path: '/oauth/userinfo',
      variants: (sizes) => tokenNumbers(sizes).map((n) => ({ headers: { Authorization: `Bearer ${accessTokenOf(n)}` } })),
    },
    {
      name: 'refresh (another refresh token each time, each used once)',
      method: 'POST',
      path: '/oauth/token',
      headers: FORM,
      variants: (sizes) =>
        tokenNumbers(sizes).map((n) => {
          const app = clientOfToken(n, sizes);
          return {
            body: form({
              grant_type: 'refresh_token',
              refresh_token: refreshTokenOf(n),
              client_id: appId(app),
              client_secret: secretOf(app),
            }),
          };
        }),
    },
    {
      name: 'authorize, consent remembered (the newest 1,000 signed-in people in turn)',
      method: 'GET',
      path: '/oauth/authorize',
      okStatus: 302,
      variants: (sizes, secret) =>
        newest(IN_TURN, sizes.people).map((n) => {
          const query = form({
            response_type: 'code',
            client_id: appId(n % sizes.applications),
            redirect_uri: REDIRECT_URI,
            scope: 'openid read',
            state: 'bench',
          });
          return { path: `/oauth/authorize?${query}`, headers: { Cookie: sessionCookie(n, secret) } };
        }),
    },
  ];
}

/** Writes a row's variants for a database to a file the load generator reads. */
export async function variantsFile(dir: string, row: SizeRow, sizes: Sizes, secret: string, label: string): Promise<string> {
  const file = path.join(dir, `variants-${label}-${row.name.replace(/[^a-z]+/gi, '-')}.json`);
  await writeFile(file, JSON.stringify(row.variants(sizes, secret)));
  return file;
}
