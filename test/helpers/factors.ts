import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
// Second factors as a person's browser would give them: enrol an authenticator app through the
// account page (codes computed with otpauth, the library the server uses), and sign in with it.
import { Secret, TOTP } from 'otpauth';
import request from 'supertest';
import type { Express } from 'express';
import * as passkeysDao from '../../src/factors/passkeys.dao';
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
  passkeysDao.insert({ _id: id, userId, publicKey: 'AQID', counter: 0, deviceType: 'singleDevice', name, createdAt: new Date() });

const b64url = (bytes: Buffer) => bytes.toString('base64url');
let passkeys = 0;

/** A passkey of the person's, registered as the account page stores one: its COSE key (ES256) and the private half. */
export async function passkeyOf(userId: string): Promise<{ id: string; key: KeyObject }> {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  // CBOR map {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}.
  const cose = Buffer.concat([
    Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]),
    Buffer.from(jwk.x!, 'base64url'),
    Buffer.from([0x22, 0x58, 0x20]),
    Buffer.from(jwk.y!, 'base64url'),
  ]);
  const id = b64url(Buffer.from(`passkey-${process.env.JEST_WORKER_ID ?? 0}-${++passkeys}-${userId}`));
  await passkeysDao.insert({
    _id: id,
    userId,
    publicKey: b64url(cose),
    counter: 0,
    deviceType: 'singleDevice',
    name: 'Key',
    createdAt: new Date(),
  });
  return { id, key: privateKey };
}

/** What the browser's authenticator answers to a sign-in challenge at `base`: user present and verified, signed. */
export function passkeyAssertion(passkey: { id: string; key: KeyObject }, challenge: string, base: URL) {
  const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: base.origin, crossOrigin: false }));
  const authenticatorData = Buffer.concat([createHash('sha256').update(base.hostname).digest(), Buffer.from([0x05, 0, 0, 0, 1])]);
  const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientData).digest()]), passkey.key);
  return {
    id: passkey.id,
    rawId: passkey.id,
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON: b64url(clientData), authenticatorData: b64url(authenticatorData), signature: b64url(signature) },
  };
}
