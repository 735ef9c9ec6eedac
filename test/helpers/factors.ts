// Second factors as a person's browser would give them: enrol an authenticator app through the
// account page (codes computed with otpauth, the library the server uses), and sign in with it.
import { Secret, TOTP } from 'otpauth';
import request from 'supertest';
import type { Express } from 'express';
import { PasskeyModel } from '../../src/factors/passkeys.model';
import { csrfFrom, unescapeHtml } from './oauth';

export type Agent = ReturnType<typeof request.agent>;

/** The authenticator app: the code for this key at a moment (now by default). */
export function totpCode(key: string, at = Date.now()): string {
  return new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(key) }).generate({ timestamp: at });
}

/** Turns the app on from the account page (its first code for `at`, the app's time); returns its key and the recovery codes shown. */
export async function enrolTotp(agent: Agent, at = Date.now()): Promise<{ key: string; recoveryCodes: string[] }> {
  const page = await agent.get('/account/totp').expect(200);
  const key = /<code>([A-Z2-7 ]+)<\/code>/.exec(page.text)![1].replace(/ /g, '');
  const done = await agent
    .post('/account/totp')
    .type('form')
    .send({ _csrf: csrfFrom(page.text), code: totpCode(key, at) })
    .expect(200);
  const recoveryCodes = [...done.text.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((match) => unescapeHtml(match[1]));
  return { key, recoveryCodes };
}

/** The password step through /login: the agent then has a pending sign-in (303 to /login/verify). */
export async function passwordStep(app: Express, user: { email: string; password: string }, agent: Agent = request.agent(app)) {
  const page = await agent.get('/login').expect(200);
  const res = await agent
    .post('/login')
    .type('form')
    .send({ _csrf: csrfFrom(page.text), email: user.email, password: user.password });
  return { agent, res };
}

/** Posts a code on the second step page. */
export async function giveCode(agent: Agent, code: string) {
  const page = await agent.get('/login/verify').expect(200);
  return agent
    .post('/login/verify')
    .type('form')
    .send({ _csrf: csrfFrom(page.text), code });
}

/** A passkey record as registration stores it (its key never used: enough for lists, removal and counts). */
export const storedPasskey = (userId: string, name: string, id = `cred-${userId}`) =>
  PasskeyModel.create({ _id: id, userId, publicKey: 'AQID', counter: 0, deviceType: 'singleDevice', name, createdAt: new Date() });
