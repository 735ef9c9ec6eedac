// ID token signatures checked with jose against the published JWK Set, across a rotation made by
// `npm run keys -- rotate` in another process: old tokens keep verifying, new ones use the new key.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import mongoose from 'mongoose';
import request from 'supertest';
import { SigningKeyModel } from '../../src/oauth/oidc/signing-keys.model';
import { runCommand } from '../helpers/commands';
import { useLiveApp } from '../helpers/oidc';
import { testDatabaseUriWithName, useTestDatabase } from '../helpers/db';
import { passwordGrant } from '../helpers/oauth';
import { testApp } from '../helpers/app';
import { msUntilFalse } from '../helpers/polling';

useTestDatabase();

const SECRET = 'test-signing-keys-secret-at-least-32-chars';
const liveApp = useLiveApp({ OIDC_KEYS_REFRESH_SECONDS: '1' });

function keysCommand(...args: string[]) {
  return runCommand('keys', args, {
    MONGODB_URI: testDatabaseUriWithName(mongoose.connection.name),
    SIGNING_KEYS_SECRET: SECRET,
    LOG_LEVEL: 'warn',
  });
}

async function idToken(): Promise<{ token: string; audience: string }> {
  const { client, tokens } = await passwordGrant(liveApp().app, { scope: 'openid' });
  return { token: (tokens as { id_token?: string }).id_token!, audience: client.client_id };
}

describe('signing keys', () => {
  it('publish the key that verifies ID tokens, and keep old keys through a rotation', async () => {
    const jwks = createRemoteJWKSet(new URL(`${liveApp().issuer}/oauth/jwks`), { cooldownDuration: 0 });
    const before = await idToken();
    const oldKid = decodeProtectedHeader(before.token).kid;
    await expect(jwtVerify(before.token, jwks, { issuer: liveApp().issuer, audience: before.audience })).resolves.toBeDefined();
    const { etag: oldEtag } = (await request(liveApp().app).get('/oauth/jwks').expect(200)).headers;
    await request(liveApp().app).get('/oauth/jwks').set('If-None-Match', oldEtag).expect(304);

    const rotated = await keysCommand('rotate');
    expect(rotated.stdout).toMatch(/^new signing keys \S+, \S+ are current/);
    // The command is another process: the running app signs with the new keys within a second (it
    // reads the keys' change signal twice a second).
    expect(await msUntilFalse(async () => decodeProtectedHeader((await idToken()).token).kid === oldKid)).toBeLessThanOrEqual(1000);

    const after = await idToken();
    const newKid = decodeProtectedHeader(after.token).kid;
    expect(newKid).not.toBe(oldKid);
    await expect(jwtVerify(after.token, jwks, { issuer: liveApp().issuer, audience: after.audience })).resolves.toBeDefined();
    // Signed before the rotation, still verifiable after it.
    await expect(jwtVerify(before.token, jwks, { issuer: liveApp().issuer, audience: before.audience })).resolves.toBeDefined();
    // The document made once per key loading is made again: the old ETag no longer matches.
    const published = await request(liveApp().app).get('/oauth/jwks').set('If-None-Match', oldEtag).expect(200);
    expect(published.headers.etag).not.toBe(oldEtag);
    // The RS256 keys before and after, and an ES256 key of each generation.
    const kids = published.body.keys.map((key: { kid: string }) => key.kid);
    expect(kids).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect(published.body.keys.map((key: { alg: string }) => key.alg).sort()).toEqual(['ES256', 'ES256', 'RS256', 'RS256']);
    expect(JSON.stringify(published.body)).not.toMatch(/"d":|"p":|"q":/);

    const listed = await keysCommand('list');
    expect(listed.stdout).toContain(`${newKid}  RS256`);
    expect(listed.stdout).toMatch(new RegExp(`${oldKid}  RS256 .* retired, published until`));
  }, 60_000);

  it('publish a key from a fresh database on, before any ID token is signed, and sign the first with it', async () => {
    await SigningKeyModel.deleteMany({});
    const fresh = testApp({ SIGNING_KEYS_SECRET: SECRET });
    const published = await request(fresh).get('/oauth/jwks').expect(200);
    expect(published.body.keys.map((key: { alg: string }) => key.alg).sort()).toEqual(['ES256', 'RS256']);
    const { tokens } = await passwordGrant(fresh, { scope: 'openid' });
    const rsa = published.body.keys.find((key: { alg: string }) => key.alg === 'RS256');
    expect(decodeProtectedHeader((tokens as { id_token?: string }).id_token!).kid).toBe(rsa.kid);
  });

  it('make one key per algorithm when 30 requests at once find a fresh database', async () => {
    await SigningKeyModel.deleteMany({});
    const fresh = testApp({ SIGNING_KEYS_SECRET: SECRET });
    const answers = await Promise.all(Array.from({ length: 30 }, () => request(fresh).get('/oauth/jwks')));
    expect(answers.every((res) => res.status === 200)).toBe(true);
    expect(new Set(answers.map((res) => res.text)).size).toBe(1);
    expect(answers[0].body.keys.map((key: { alg: string }) => key.alg).sort()).toEqual(['ES256', 'RS256']);
    expect(await SigningKeyModel.countDocuments()).toBe(2);
  });

  it('let a server whose SIGNING_KEYS_SECRET changed make a key it can use, and sign', async () => {
    await request(liveApp().app).get('/oauth/jwks').expect(200);
    const changed = testApp({ SIGNING_KEYS_SECRET: 'a-new-signing-keys-secret-of-32-chars-or-more' });
    const { tokens } = await passwordGrant(changed, { scope: 'openid' });
    expect((tokens as { id_token?: string }).id_token).toEqual(expect.any(String));
  });

  it('keep private keys only encrypted in the database', async () => {
    await idToken();
    const stored = await SigningKeyModel.find().lean();
    expect(stored.length).toBeGreaterThan(0);
    for (const key of stored) {
      expect(JSON.stringify(key)).not.toContain('PRIVATE KEY');
      expect(key.publicJwk).not.toHaveProperty('d');
    }
  });

  it("refuse to rotate under a SIGNING_KEYS_SECRET other than the servers', writing nothing", async () => {
    await idToken(); // the server has a current key
    const before = await mongoose.connection.collection('oidc_signing_keys').countDocuments();
    const run = runCommand('keys', ['rotate'], {
      MONGODB_URI: testDatabaseUriWithName(mongoose.connection.name),
      SIGNING_KEYS_SECRET: 'a-secret-that-is-not-the-servers-one-at-all',
      LOG_LEVEL: 'warn',
    });
    await expect(run).rejects.toMatchObject({ stderr: expect.stringContaining("set it to the servers' value") });
    expect(await mongoose.connection.collection('oidc_signing_keys').countDocuments()).toBe(before);
  }, 30_000);
});
