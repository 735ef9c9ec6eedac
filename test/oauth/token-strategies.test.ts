// The token strategies, each on its own (issue 52): the opaque and JWT formats mint a token and read
// one back (through the real token records), the formats together read a token by the first format it
// belongs to, the issuer mints in the resource's format and the profile's algorithm, and the Bearer and
// DPoP sender constraints confirm or refuse a live token in their own words. The guard that puts them
// together is tested at every API in token-alive.test.ts.
import express, { type Request, type Response } from 'express';
import { decodeProtectedHeader } from 'jose';
import request from 'supertest';
import { systemClock } from '../../src/common/clock';
import { sha256 } from '../../src/common/crypto';
import { errorHandler } from '../../src/common/error-handler';
import { ClientModel, type ClientDocument } from '../../src/oauth/clients/clients.model';
import { createDpopProofs } from '../../src/oauth/dpop/dpop.service';
import { createKeyRing, keyRingOptions } from '../../src/oauth/oidc/signing-keys.service';
import type { Resource } from '../../src/oauth/resources/resources.service';
import { createAccessTokenFormats, type TokenRecords } from '../../src/oauth/tokens/formats';
import { createJwtFormat } from '../../src/oauth/tokens/formats/jwt';
import { opaqueFormat } from '../../src/oauth/tokens/formats/opaque';
import { createTokenIssuer } from '../../src/oauth/tokens/issuing.service';
import { senderOf } from '../../src/oauth/tokens/sender-constraints';
import * as tokensDao from '../../src/oauth/tokens/tokens.dao';
import type { TokenDocument } from '../../src/oauth/tokens/tokens.model';
import type { LiveGrant } from '../../src/oauth/tokens/tokens.service';
import { testConfig } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { dpopProof, newDpopKey } from '../helpers/dpop';
import { registerClient } from '../helpers/oauth';

useTestDatabase();

const config = testConfig();
const issuer = config.publicUrl;
const keys = createKeyRing(keyRingOptions(config.oauth));
const jwtFormat = createJwtFormat(keys, config);
/** The real records, read straight from the database (tokens.service adds its caches on top). */
const records: TokenRecords = {
  live: async (token) => {
    const doc = await tokensDao.findTokenByAccessHash(sha256(token));
    return doc && doc.accessTokenExpiresAt > new Date() ? doc : null;
  },
  revoked: (jti) => tokensDao.isJwtRevoked(jti),
};
const claims = { clientId: 'client-a', scope: ['read'], lifetimeSeconds: 300, audience: issuer, algorithm: 'ES256' as const };

function recordFor(token: string, fields: Partial<TokenDocument> = {}): Promise<void> {
  return tokensDao.insertToken({
    _id: sha256(token),
    accessTokenExpiresAt: new Date(Date.now() + 300_000),
    scope: ['openid', 'read'],
    clientId: 'client-a',
    userId: 'person-a',
    familyId: `family-${token.slice(0, 8)}`,
    issuedAt: new Date(),
    ...fields,
  });
}

describe('the opaque format', () => {
  it('mints 256 random bits that expire after the lifetime and always need a record', async () => {
    const now = new Date();
    const minted = await opaqueFormat.mint(claims, now);
    expect(minted.token).toMatch(/^[\w-]{43}$/);
    expect(minted.expiresAt.getTime() - now.getTime()).toBe(300_000);
    expect(minted.recorded).toBe(true);
    expect((await opaqueFormat.mint(claims, now)).token).not.toBe(minted.token);
  });

  it('reads a token back by its record: the access scope, and nothing for another resource or no record', async () => {
    const { token } = await opaqueFormat.mint(claims, new Date());
    expect(await opaqueFormat.grant(token, issuer, records)).toBeNull();
    await recordFor(token, { accessScope: ['read'], jkt: 'thumbprint' });
    expect(await opaqueFormat.grant(token, issuer, records)).toMatchObject({
      scope: ['read'],
      clientId: 'client-a',
      userId: 'person-a',
      jkt: 'thumbprint',
    });
    const other = (await opaqueFormat.mint(claims, new Date())).token;
    await recordFor(other, { resource: 'https://api.example' });
    expect(await opaqueFormat.grant(other, issuer, records)).toBeNull();
    expect(await opaqueFormat.grant(other, 'https://api.example', records)).not.toBeNull();
    expect(await opaqueFormat.unrecorded(token)).toBeNull();
  });
});

describe('the JWT format (RFC 9068)', () => {
  it('mints a signed at+jwt; a client acting for itself needs no record, a person does', async () => {
    const own = await jwtFormat.mint(claims, new Date());
    expect(decodeProtectedHeader(own.token)).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
    expect(own.recorded).toBe(false);
    expect((await jwtFormat.mint({ ...claims, userId: 'person-a' }, new Date())).recorded).toBe(true);
    await expect(jwtFormat.mint({ ...claims, audience: undefined }, new Date())).rejects.toThrow(/audience/);
  });

  it("reads a client's own JWT by its signature: for its audience only, until its jti is revoked", async () => {
    const { token, expiresAt } = await jwtFormat.mint(claims, new Date());
    expect(await jwtFormat.grant(token, issuer, records)).toMatchObject({ scope: ['read'], clientId: 'client-a' });
    expect(await jwtFormat.grant(token, 'https://api.example', records)).toBeNull();
    const unrecorded = await jwtFormat.unrecorded(token);
    expect(unrecorded).toMatchObject({ clientId: 'client-a', audience: [issuer] });
    await tokensDao.revokeJwt(unrecorded!.jti, expiresAt);
    expect(await jwtFormat.grant(token, issuer, records)).toBeNull();
  });

  it("reads a person's JWT only while its record is there, and it is not unrecorded", async () => {
    const { token } = await jwtFormat.mint({ ...claims, userId: 'person-a' }, new Date());
    expect(await jwtFormat.grant(token, issuer, records)).toBeNull();
    await recordFor(token, { claims: { userinfo: ['email'], id_token: [] } });
    expect(await jwtFormat.grant(token, issuer, records)).toMatchObject({
      userId: 'person-a',
      claims: { userinfo: ['email'], id_token: [] },
    });
    expect(await jwtFormat.unrecorded(token)).toBeNull();
  });

  it('says a JWT with a bad signature is its own and refused (null), and anything else is not its own (undefined)', async () => {
    const { token } = await jwtFormat.mint(claims, new Date());
    const [header, payload] = token.split('.');
    expect(await jwtFormat.grant(`${header}.${payload}.${'A'.repeat(86)}`, issuer, records)).toBeNull();
    expect(await jwtFormat.grant((await opaqueFormat.mint(claims, new Date())).token, issuer, records)).toBeUndefined();
  });
});

describe('the formats together', () => {
  const formats = createAccessTokenFormats(keys, config);

  it('picks the format a resource names, opaque without one', () => {
    expect(formats.of('jwt')).not.toBe(formats.of('opaque'));
    expect(formats.of(undefined)).toBe(formats.of('opaque'));
  });

  it('reads a token by the first format it belongs to: a forged JWT is never looked up as an opaque token', async () => {
    const { token } = await jwtFormat.mint(claims, new Date());
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    // A record under the forged value's hash would let it in, were it read as opaque.
    await recordFor(forged, { userId: undefined });
    expect(await formats.grant(forged, issuer, records)).toBeNull();
    const opaque = (await opaqueFormat.mint(claims, new Date())).token;
    await recordFor(opaque);
    expect(await formats.grant(opaque, issuer, records)).toMatchObject({ clientId: 'client-a' });
    expect(await formats.grant(token, issuer, records)).toMatchObject({ clientId: 'client-a' });
    expect(await formats.unrecorded(token)).toMatchObject({ clientId: 'client-a' });
    expect(await formats.unrecorded(opaque)).toBeNull();
  });
});

describe('the issuer', () => {
  const issue = createTokenIssuer(createAccessTokenFormats(keys, config));
  const lifetimes = { accessToken: 600, refreshToken: 3600 };
  const resource = (fields: Partial<Resource> = {}): Resource => ({
    id: 'https://api.example',
    scopes: ['read'],
    format: 'jwt',
    accessTokenLifetime: 120,
    signingAlg: 'RS256',
    own: false,
    ...fields,
  });

  async function client(fields: Partial<ClientDocument> = {}): Promise<ClientDocument> {
    const { client_id } = await registerClient({ grants: ['client_credentials'] });
    await ClientModel.updateOne({ _id: client_id }, { $set: fields });
    return (await ClientModel.findById(client_id).lean())!;
  }

  const decision = (forClient: ClientDocument, fields = {}) => ({
    client: forClient,
    person: null,
    scope: ['read', 'openid'],
    grantType: 'client_credentials',
    refreshToken: false,
    ...fields,
  });

  it("mints in the resource's format and lifetime with the resource's scopes, and writes no record for a client's own JWT", async () => {
    const plain = await client();
    const issued = await issue(decision(plain, { resource: resource() }), lifetimes);
    expect(decodeProtectedHeader(issued.accessToken).alg).toBe('RS256');
    expect(issued).toMatchObject({ expiresIn: 120, accessScope: ['read'], tokenType: 'Bearer' });
    expect(await tokensDao.findTokenByAccessHash(sha256(issued.accessToken))).toBeNull();
    const opaque = await issue(decision(plain, { resource: resource({ format: 'opaque' }) }), lifetimes);
    expect(opaque.accessToken.split('.')).toHaveLength(1);
    expect(await tokensDao.findTokenByAccessHash(sha256(opaque.accessToken))).toMatchObject({
      resource: 'https://api.example',
      accessScope: ['read'],
    });
    const none = await issue(decision(plain), lifetimes);
    expect(none).toMatchObject({ expiresIn: 600, accessScope: undefined });
  });

  it('signs a FAPI 2.0 client’s JWT with ES256 whatever the resource says (never RS256)', async () => {
    const fapi = await client({ metadata: { fapi_profile: 'fapi2' } });
    const issued = await issue(decision(fapi, { resource: resource({ signingAlg: 'RS256' }), jkt: 'thumbprint' }), lifetimes);
    expect(decodeProtectedHeader(issued.accessToken).alg).toBe('ES256');
    expect(issued.tokenType).toBe('DPoP');
  });
});

describe('the sender constraints', () => {
  const dpop = createDpopProofs(config, systemClock);
  const live = (jkt?: string): LiveGrant => ({
    grant: { scope: ['read'], clientId: 'client-a', issuedAt: new Date(), ...(jkt ? { jkt } : {}) },
    client: { _id: 'client-a' } as ClientDocument,
    person: null,
  });
  /** A resource that confirms the request's token as if it were alive with `jkt`, and answers which sender it met. */
  function resourceApp(jkt?: string) {
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.all('/resource', async (req: Request, res: Response) => {
      const sender = senderOf(req, res, dpop);
      if (!sender.sent) throw sender.refusal(401, 'invalid_request', 'none sent');
      await sender.confirm(req, live(jkt));
      res.json({ invalid: sender.invalidTokenError('invalid_request') });
    });
    app.use(errorHandler);
    return app;
  }
  const url = `${issuer}/resource`;

  it('Bearer: a token in the header in any spelling, or a form body, is sent; a bound token is refused with DPoP’s challenge', async () => {
    expect((await request(resourceApp()).get('/resource').set('Authorization', 'bearer abc').expect(200)).body.invalid).toBe(
      'invalid_request',
    );
    await request(resourceApp()).post('/resource').type('form').send({ access_token: 'abc' }).expect(200);
    await request(resourceApp()).get('/resource').expect(401);
    const bound = await request(resourceApp('thumbprint')).get('/resource').set('Authorization', 'Bearer abc').expect(401);
    expect(bound.body.error).toBe('invalid_token');
    expect(bound.headers['www-authenticate']).toMatch(/^DPoP error="invalid_token"/);
  });

  it('DPoP: needs a bound token and a proof by its key for this request; its refusals are invalid_token and DPoP’s', async () => {
    const key = await newDpopKey();
    const proof = () => dpopProof(key, 'GET', url, 'abc');
    const ok = await request(resourceApp(key.jkt))
      .get('/resource')
      .set('Authorization', 'DPoP abc')
      .set('DPoP', await proof())
      .expect(200);
    expect(ok.body.invalid).toBe('invalid_token');
    const unbound = await request(resourceApp())
      .get('/resource')
      .set('Authorization', 'DPoP abc')
      .set('DPoP', await proof())
      .expect(401);
    expect(unbound.body.error_description).toMatch(/not bound/);
    const noProof = await request(resourceApp(key.jkt)).get('/resource').set('Authorization', 'DPoP abc').expect(401);
    expect(noProof.body.error).toBe('invalid_dpop_proof');
    expect(noProof.headers['www-authenticate']).toMatch(/^DPoP error="invalid_dpop_proof".*algs="/);
    const otherKey = await request(resourceApp('another-thumbprint'))
      .get('/resource')
      .set('Authorization', 'DPoP abc')
      .set('DPoP', await proof())
      .expect(401);
    expect(otherKey.body.error_description).toMatch(/another DPoP key/);
    const wrongAth = await request(resourceApp(key.jkt))
      .get('/resource')
      .set('Authorization', 'DPoP abc')
      .set('DPoP', await dpopProof(key, 'GET', url, 'xyz'))
      .expect(401);
    expect(wrongAth.body.error).toBe('invalid_dpop_proof');
  });
});
