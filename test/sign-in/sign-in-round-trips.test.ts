// The database round trips of signing in to an application, counted with the driver's command
// monitoring and the default settings (rate limits on): from the password to the redirect that carries
// the code, consent remembered (docs/architecture.md, "The sign-in journey", lists where each goes):
// known in memory, as after an approval on this instance in the last minute, and read from the
// database, as one given long ago. What no request waits for (the change signals the caches poll, the
// expiry journal) is not the request's. Issue 34 set 6 and 10; issue 54 finds the person by email
// through a key record (two reads by _id where one read searched the whole collection on FerretDB),
// so 7 and 11.
import request from 'supertest';
import { testApp } from '../helpers/app';
import { useMonitoredTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp, totpCode } from '../helpers/factors';
import { addScopes } from '../../src/oauth/grants/grants.dao';
import { approve, csrfFrom, REDIRECT_URI, registerClient, signedInAgent, signOutOf } from '../helpers/oauth';

// The app's clock stands still: a cache read again after an interval of time (the signing keys every
// 30 s) is no request's round trip, and a slow run must not make it one.
const frozen = Date.now();
const clock = { now: () => frozen };
const app = testApp({ RATE_LIMITS: 'on', TRUST_PROXY: 'true' }, { clock });
// Each journey comes from an address of its own: the budgets' hits land in free slots at once, as for
// a person whose address has not been busy (a slot an earlier journey holds makes the limiter look
// again, three more round trips; common/rate-limit.ts).
let journeys = 0;
const { commands } = useMonitoredTestDatabase();

/**
 * A person who has approved the client once (consent remembered), with the app on when asked; signed
 * out. A consent `known` was given on this instance just now; otherwise it was stored by another.
 */
async function personOfClient(withApp: boolean, known = true) {
  const user = await createUser();
  const client = await registerClient();
  const query = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'openid', state: 's' };
  const { agent } = await signedInAgent(app, user);
  if (known) await approve(agent, query);
  else await addScopes(user.id, client.client_id, ['openid'], new Date());
  const key = withApp ? (await enrolTotp(agent, clock.now())).key : undefined;
  // Signed out, the setup's session gives its slot back: the journey's session picks among 50 free
  // ones, as a person's first sign-in does (a pick the setup's session held costs the look-again, three
  // more commands: CI saw it once in 50 runs).
  await signOutOf(agent);
  return { user, query, key };
}

/** From POST /login to the redirect with the code; the commands each request sent. */
async function journey(withApp: boolean, step = 0, known = true): Promise<{ total: number; byRequest: Record<string, string[]> }> {
  const { user, query, key } = await personOfClient(withApp, known);
  const agent = request.agent(app).set('X-Forwarded-For', `203.0.113.${++journeys}`);
  const start = await agent.get('/oauth/authorize').query(query).expect(302);
  const page = await agent.get(start.headers.location).expect(200);
  const byRequest: Record<string, string[]> = {};
  const measure = async <T>(name: string, send: () => Promise<T>): Promise<T> => {
    commands.length = 0;
    const res = await send();
    byRequest[name] = [...commands];
    return res;
  };
  let next = await measure('POST /login', () =>
    agent
      .post('/login')
      .type('form')
      .send({ _csrf: csrfFrom(page.text), email: user.email, password: user.password, return_to: returnToOf(start.headers.location) })
      .expect(303),
  );
  if (withApp) {
    expect(next.headers.location).toBe('/login/verify');
    const form = await measure('GET /login/verify', () => agent.get('/login/verify').expect(200));
    next = await measure('POST /login/verify', () =>
      agent
        .post('/login/verify')
        .type('form')
        .send({ _csrf: csrfFrom(form.text), code: totpCode(key!, clock.now() + step * 30_000) })
        .expect(303),
    );
  }
  // The last step answers the application's request itself (consent remembered): its code comes back
  // in that step's own response, with no trip back to /oauth/authorize.
  expect(next.headers.location).toMatch(new RegExp(`^${REDIRECT_URI}\\?`));
  expect(new URL(next.headers.location).searchParams.get('code')).toEqual(expect.any(String));
  return { total: Object.values(byRequest).reduce((sum, sent) => sum + sent.length, 0), byRequest };
}

const returnToOf = (loginLocation: string) => new URL(loginLocation, 'http://internal').searchParams.get('return_to')!;

/** The commands of each request, named in a failure. */
const listed = (byRequest: Record<string, string[]>) => Object.entries(byRequest).map(([name, sent]) => `${name}: ${sent.join(', ')}`);

it('signs in with a password and an authenticator app, to the code, in at most 11 round trips (and 1 for the form)', async () => {
  // The first sign-in of a process also loads the signing keys and sweeps expired records.
  await journey(true, 1);
  const { total, byRequest } = await journey(true, 1);
  const form = byRequest['GET /login/verify'];
  // The second step's form reads nothing but its interaction: the factors were read with the password.
  expect(form).toEqual(['find interactions']);
  // A failure shows the commands of each request beside the count.
  expect({ withinEleven: total - form.length <= 11, listed: listed(byRequest) }).toEqual({ withinEleven: true, listed: listed(byRequest) });
  // The record says which factors the account has: the password step does not look at them.
  expect(byRequest['POST /login']).not.toEqual(expect.arrayContaining(['find totp_secrets']));
  // The password's budget hits are held for the second step, given back with its own: no release here.
  expect(byRequest['POST /login']).not.toContain('delete rate_limit_hits');
  // The password step writes its interaction, not a session: nobody is signed in yet.
  expect(byRequest['POST /login'].filter((command) => command === 'insert interactions')).toHaveLength(1);
  expect(byRequest['POST /login']).not.toContain('insert sessions');
  expect(byRequest['POST /login']).not.toContain('update sessions');
  // The person is found by the key of their email, then by their id: reads by _id alone.
  expect(byRequest['POST /login'].slice(1, 3)).toEqual(['find user_keys', 'find users']);
  // The second step reads its interaction once and uses it up with a mark that rides in the budget's
  // own insert (no command of its own), then writes the new session once, with the person's slot it
  // holds in the same insert; there was no session before it to read or delete.
  const second = byRequest['POST /login/verify'];
  expect(second.filter((command) => command === 'find interactions')).toHaveLength(1);
  expect(second.filter((command) => command === 'insert rate_limit_hits')).toHaveLength(1);
  expect(second).not.toContain('delete interactions');
  expect(second.filter((command) => command === 'insert sessions')).toHaveLength(1);
  expect(second).not.toContain('update sessions');
  expect(second).not.toContain('find sessions');
  expect(second).not.toContain('delete sessions');
  // The consent remembered is known in memory: the code is issued without reading it.
  expect(second).not.toContain('find oauth_grants');
});

it('signs in with a password alone, to the code, in at most 7 round trips, and 8 when the consent is read', async () => {
  await journey(false);
  const cold = await journey(false, 0, false);
  expect(cold.byRequest['POST /login'].filter((command) => command === 'find oauth_grants')).toHaveLength(1);
  expect(cold.total).toBeLessThanOrEqual(8);
  const { total, byRequest } = await journey(false);
  expect({ withinSeven: total <= 7, listed: listed(byRequest) }).toEqual({ withinSeven: true, listed: listed(byRequest) });
  // An account with no second factor says so in its record: its factors are not looked at, and the
  // session made by this request is not deleted first (it was never stored).
  expect(byRequest['POST /login']).not.toEqual(expect.arrayContaining(['find totp_secrets']));
  expect(byRequest['POST /login']).not.toContain('delete sessions');
  expect(byRequest['POST /login'].filter((command) => command === 'insert sessions')).toHaveLength(1);
  // No trip back to the authorization endpoint: the session is not read again, and the code is issued here.
  expect(byRequest['POST /login']).not.toContain('find sessions');
  expect(byRequest['POST /login']).toContain('insert oauth_codes');
});
