// Issue 48, finding 1: seed 000's open users API lets anyone PATCH `permissionFlags`, so the flags
// must never make an admin: not in the `roles` claim, not at the console, not under USERS_API_AUTH=jwt.
// Only an operator gives the admin role (make-admin, the admin API, the console).
import request from 'supertest';
import { decodeJwt } from 'jose';
import * as usersService from '../../src/users/users.service';
import { UserModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { enrolTotp } from '../helpers/factors';
import { approve, clientSecretPost, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';

useTestDatabase();
const app = testApp();

describe('permissionFlags written through the open users API', () => {
  it('are stored and returned as seed 000 says, and give no admin role anywhere', async () => {
    const person = await createUser();
    // Anyone, no credentials: the seed's open PATCH.
    await request(app).patch(`/users/${person.id}`).send({ permissionFlags: 9 }).expect(204);
    expect((await request(app).get(`/users/${person.id}`).expect(200)).body.permissionFlags).toBe(9);

    // The console stays closed, even with a second factor the person added themselves.
    const { agent } = await signedInAgent(app, person);
    await enrolTotp(agent);
    expect((await agent.get('/admin/people')).status).toBe(403);

    // The roles claim is empty: in the ID token and from userinfo.
    const client = await registerClient({ grants: ['authorization_code'] });
    const location = await approve(agent, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'openid roles',
      nonce: 'n-1',
    });
    const tokens = await request(app)
      .post('/oauth/token')
      .type('form')
      .send({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code'),
        redirect_uri: REDIRECT_URI,
        ...clientSecretPost(client),
      })
      .expect(200);
    expect(decodeJwt(tokens.body.id_token).roles).toEqual([]);
    const info = await request(app).get('/oauth/userinfo').set('Authorization', `Bearer ${tokens.body.access_token}`).expect(200);
    expect(info.body.roles).toEqual([]);
  });

  it('do not make an administrator of the protected users API either', async () => {
    const guarded = testApp({ USERS_API_AUTH: 'jwt' });
    const person = await createUser();
    const other = await createUser();
    await UserModel.updateOne({ _id: person.id }, { $set: { permissionFlags: 0x7fffffff } });
    const { accessToken } = (await request(guarded).post('/auth').send({ email: person.email, password: person.password }).expect(201))
      .body;
    const bearer = `Bearer ${accessToken as string}`;
    await request(guarded).get('/users').set('Authorization', bearer).expect(403);
    await request(guarded).get(`/users/${other.id}`).set('Authorization', bearer).expect(403);
    // Once an operator gives the role, the same token may (the role is read from the record).
    await usersService.setRole(person.id, usersService.ADMIN_ROLE, true);
    await request(guarded).get(`/users/${other.id}`).set('Authorization', bearer).expect(200);
  });
});
