// The claims about a person (OIDC Core 5): the standard claims a record holds (set through the users
// API), released by the profile, email, address and phone scopes from userinfo when an access token is
// issued and in the ID token only when none is, and single claims asked for by the `claims` parameter.
import request from 'supertest';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, clientSecretPost, codeExchange, registerClient, REDIRECT_URI, signedInAgent } from '../helpers/oauth';

useTestDatabase();

const app = testApp();

const payloadOf = (idToken: string) => JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

const SHARED = {
  nickname: 'Ada',
  preferred_username: 'ada',
  website: 'https://ada.example.com',
  birthdate: '1815-12-10',
  zoneinfo: 'Europe/London',
  locale: 'en-GB',
  phone_number: '+442079460000',
  address: { street_address: '12 St James Square', locality: 'London', postal_code: 'SW1Y 4JH', country: 'GB' },
};

async function personWithClaims() {
  const person = await createUser({ firstName: 'Ada', lastName: 'Lovelace' });
  await request(app).patch(`/users/${person.id}`).send({ claims: SHARED }).expect(204);
  return person;
}

/** Code flow for the person: the token response and what the consent page said. */
async function codeFlow(person: Awaited<ReturnType<typeof createUser>>, extra: Record<string, string>) {
  const client = await registerClient();
  const { agent } = await signedInAgent(app, person);
  const query = { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, nonce: 'n-1', ...extra };
  const consent = await agent.get('/oauth/authorize').query(query).expect(200);
  const location = await approve(agent, query);
  const tokens = await request(app)
    .post('/oauth/token')
    .type('form')
    .send(codeExchange(client, location.searchParams.get('code')!))
    .expect(200);
  return { client, agent, query, consentPage: consent.text, tokens: tokens.body as Record<string, string> };
}

const userinfo = (accessToken: string) =>
  request(app)
    .get('/oauth/userinfo')
    .set('Authorization', `Bearer ${accessToken}`)
    .expect(200)
    .then((res) => res.body as Record<string, unknown>);

describe('the claims a record holds, through the users API', () => {
  it('keeps the claims a PATCH sends, shows them on GET, and leaves them when a later change omits them', async () => {
    const person = await personWithClaims();
    await request(app).patch(`/users/${person.id}`).send({ firstName: 'Augusta' }).expect(204);
    const read = await request(app).get(`/users/${person.id}`).expect(200);
    expect(read.body.claims).toEqual(SHARED);
    expect(read.body.firstName).toBe('Augusta');
  });

  it('treats an empty text as a claim not shared, and an empty object as none at all', async () => {
    const person = await personWithClaims();
    await request(app)
      .patch(`/users/${person.id}`)
      .send({ claims: { nickname: '', locale: 'fr-FR', address: { locality: '' } } })
      .expect(204);
    expect((await request(app).get(`/users/${person.id}`)).body.claims).toEqual({ locale: 'fr-FR' });
    await request(app).patch(`/users/${person.id}`).send({ claims: {} }).expect(204);
    expect((await request(app).get(`/users/${person.id}`)).body.claims).toBeUndefined();
  });

  it.each([
    [{ website: 'javascript:alert(1)' }, 'claims.website must be an http or https URL'],
    [{ phone_number: '020 7946 0000' }, 'claims.phone_number must be an E.164 number'],
    [{ zoneinfo: 'Mars/Olympus' }, 'claims.zoneinfo must be a time zone'],
    [{ locale: 'not a locale!' }, 'claims.locale must be a BCP 47 language tag'],
    [{ birthdate: '10/12/1815' }, 'claims.birthdate must be YYYY-MM-DD'],
    [{ email: 'x@example.com' }, 'claims.email is not a claim this server keeps'],
    [{ address: { planet: 'Earth' } }, 'claims.address.planet is not an address field'],
    [{ nickname: 'x'.repeat(201) }, 'at most 200 characters'],
    [{ nickname: 7 }, 'claims.nickname must be text'],
    [['nickname'], 'claims must be an object'],
  ])('refuses %j with a 400 that says why, and changes nothing', async (claims, message) => {
    const person = await personWithClaims();
    const res = await request(app).patch(`/users/${person.id}`).send({ claims }).expect(400);
    expect(res.body.errors[0]).toMatchObject({ path: 'claims' });
    expect(res.body.errors[0].msg).toContain(message);
    expect((await request(app).get(`/users/${person.id}`)).body.claims).toEqual(SHARED);
  });
});

describe('release by scope', () => {
  it('gives every scope claim from userinfo in the code flow, and none of them in its ID token', async () => {
    const person = await personWithClaims();
    const { tokens } = await codeFlow(person, { scope: 'openid profile email address phone' });
    const idToken = payloadOf(tokens.id_token);
    expect(idToken).toMatchObject({ sub: person.id, acr: '1', nonce: 'n-1' });
    for (const claim of ['name', 'email', 'address', 'phone_number', 'nickname', 'updated_at']) expect(idToken[claim]).toBeUndefined();

    const info = await userinfo(tokens.access_token);
    const { address, ...single } = SHARED;
    expect(info).toMatchObject({
      sub: person.id,
      name: 'Ada Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      email: person.email,
      email_verified: false,
      ...single,
      phone_number_verified: false,
      address,
    });
    expect(info.updated_at).toEqual(expect.any(Number));
  });

  it('releases only what the granted scopes cover', async () => {
    const person = await personWithClaims();
    const { tokens } = await codeFlow(person, { scope: 'openid phone' });
    expect(await userinfo(tokens.access_token)).toEqual({
      sub: person.id,
      phone_number: SHARED.phone_number,
      phone_number_verified: false,
    });
  });

  it('moves updated_at forward when the record changes', async () => {
    const person = await personWithClaims();
    const { tokens } = await codeFlow(person, { scope: 'openid profile' });
    // updated_at counts seconds: the record is made to look two seconds older instead of waiting.
    const before = ((await userinfo(tokens.access_token)).updated_at as number) - 2;
    await UserModel.collection.updateOne({ _id: person.id as never }, { $set: { updatedAt: new Date(before * 1000) } });
    await request(app).patch(`/users/${person.id}`).send({ lastName: 'King' }).expect(204);
    const after = await userinfo(tokens.access_token);
    expect(after.family_name).toBe('King');
    expect(after.updated_at as number).toBeGreaterThan(before);
  });

  it('puts the scope claims in the ID token when no access token is issued (response_type=id_token)', async () => {
    const person = await personWithClaims();
    const client = await registerClient({ grants: ['implicit'] });
    const { agent } = await signedInAgent(app, person);
    const location = await approve(agent, {
      response_type: 'id_token',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'openid email address',
      nonce: 'n-2',
    });
    const idToken = payloadOf(new URLSearchParams(location.hash.slice(1)).get('id_token')!);
    expect(idToken).toMatchObject({ sub: person.id, email: person.email, email_verified: false, address: SHARED.address, acr: '1' });
    expect(idToken.name).toBeUndefined();
  });
});

describe('the claims parameter', () => {
  const claims = JSON.stringify({
    userinfo: { name: { essential: true }, unknown_claim: null },
    id_token: { email: null, auth_time: { essential: true } },
  });

  it('releases the claims it names, where it names them, after the consent page lists them', async () => {
    const person = await personWithClaims();
    const { consentPage, tokens, client } = await codeFlow(person, { scope: 'openid offline_access', claims });
    expect(consentPage).toContain('<strong>also</strong>: name, email');
    expect(payloadOf(tokens.id_token)).toMatchObject({ email: person.email });
    expect(payloadOf(tokens.id_token).name).toBeUndefined();
    expect(await userinfo(tokens.access_token)).toEqual({ sub: person.id, name: 'Ada Lovelace' });

    // A renewed ID token carries what the authorization asked for.
    const refreshed = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        ...clientSecretPost(client),
      })
      .expect(200);
    expect(payloadOf(refreshed.body.id_token)).toMatchObject({ email: person.email });
    expect(await userinfo(refreshed.body.access_token)).toEqual({ sub: person.id, name: 'Ada Lovelace' });
  });

  it('asks again for claims beyond the consent given before, and not when earlier consent covers them', async () => {
    const person = await personWithClaims();
    const { agent, query } = await codeFlow(person, { scope: 'openid' });
    // Consent for openid alone does not cover name.
    await agent
      .get('/oauth/authorize')
      .query({ ...query, claims })
      .expect(200);
    // Consent for profile and email does.
    const wider = await codeFlow(person, { scope: 'openid profile email' });
    const again = await wider.agent
      .get('/oauth/authorize')
      .query({ ...wider.query, scope: 'openid', claims })
      .expect(302);
    expect(new URL(again.headers.location).searchParams.get('code')).toBeTruthy();
  });

  it.each([
    ['not json', 'claims must be a JSON object'],
    ['[1]', 'claims must be a JSON object'],
    ['{"userinfo":[]}', 'claims.userinfo must be an object'],
    ['{"id_token":{"email":{"essential":"yes"}}}', 'claims.id_token.email.essential must be true or false'],
    ['{"userinfo":{"name":{"values":"x"}}}', 'claims.userinfo.name.values must be an array'],
  ])('answers %s with invalid_request to the client', async (value, description) => {
    const client = await registerClient();
    const { agent } = await signedInAgent(app);
    const res = await agent
      .get('/oauth/authorize')
      .query({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'openid', claims: value, state: 's' })
      .expect(302);
    const location = new URL(res.headers.location);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      error: 'invalid_request',
      error_description: description,
      state: 's',
    });
  });
});

it('discovery lists the scopes, the releasable claims, the claims parameter and the acr values', async () => {
  const { body } = await request(app).get('/.well-known/openid-configuration').expect(200);
  expect(body.scopes_supported).toEqual(expect.arrayContaining(['address', 'phone', 'profile', 'email']));
  expect(body.claims_supported).toEqual(
    expect.arrayContaining([
      'sub',
      'address',
      'phone_number',
      'phone_number_verified',
      'birthdate',
      'zoneinfo',
      'locale',
      'updated_at',
      'acr',
    ]),
  );
  expect(body.claims_parameter_supported).toBe(true);
  expect(body.acr_values_supported).toEqual(['1', '2']);
});
