// Records stored before issue 54's keys, families, journal and lists (src/migrations.ts): a database
// written the earlier way works the same once migrated, and each migration runs once per database.
import mongoose from 'mongoose';
import request from 'supertest';
import { sha256 } from '../../src/common/crypto';
import { hashPassword } from '../../src/common/passwords';
import { journalWritten, sweepJournals } from '../../src/db/expiry-journal';
import * as passkeysDao from '../../src/factors/passkeys.dao';
import * as backchannelDao from '../../src/oauth/oidc/backchannel.dao';
import { migrate } from '../../src/migrations';
import { UserKeyModel } from '../../src/users/users.model';
import { testApp } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { passwordGrant, refreshWith } from '../helpers/oauth';

useTestDatabase();
const app = testApp();
const quiet = { info: () => undefined };
const db = () => mongoose.connection.db!;

/** Forgets that the migrations ran, as on a database written before them. */
const unmigrated = () => db().collection('migrations').deleteMany({});

it('finds a person stored without keys by email once migrated', async () => {
  await db()
    .collection('users')
    .insertOne({
      _id: 'legacyperson1' as never,
      uid: 990001,
      email: 'legacy@example.com',
      password: await hashPassword('legacy-pass'),
      permissionFlags: 1,
    });
  await request(app).post('/auth').send({ email: 'legacy@example.com', password: 'legacy-pass' }).expect(400);
  await unmigrated();
  await migrate(quiet);
  await request(app).post('/auth').send({ email: 'legacy@example.com', password: 'legacy-pass' }).expect(201);
  expect(await UserKeyModel.findById('email:legacy@example.com').lean()).toMatchObject({ userId: 'legacyperson1' });
});

it("brings a person's token stored without its family back to life, and journals every expiring record", async () => {
  const { tokens, client } = await passwordGrant(app);
  const id = sha256(tokens.access_token);
  const token = (await db()
    .collection('oauth_tokens')
    .findOne({ _id: id as never }))!;
  // As stored before families: no family record, and no journal entry.
  await db()
    .collection('oauth_tokens')
    .deleteOne({ _id: `family:${token.familyId}` as never });
  await journalWritten();
  for (const journal of (await db().listCollections({}, { nameOnly: true }).toArray()).filter((c) => c.name.startsWith('expiring_')))
    await db().collection(journal.name).drop();
  const me = () => request(app).get('/api/user').set('Authorization', `Bearer ${tokens.access_token}`);
  await me().expect(401);
  await unmigrated();
  await migrate(quiet);
  await me().expect(200);
  const refreshed = await refreshWith(app, client, tokens.refresh_token).expect(200);
  expect(refreshed.body.access_token).toEqual(expect.any(String));
  // Written down: past its expiry (a year and a day on), the sweep deletes the record.
  await sweepJournals(new Date(Date.now() + 368 * 24 * 3600_000));
  expect(
    await db()
      .collection('oauth_tokens')
      .findOne({ _id: id as never }),
  ).toBeNull();
});

it("lists a person's passkeys stored before lists, and runs each migration once", async () => {
  const person = await createUser();
  await db()
    .collection('passkeys')
    .insertOne({
      _id: 'legacy-credential' as never,
      userId: person.id,
      publicKey: 'AQID',
      counter: 0,
      deviceType: 'singleDevice',
      name: 'Old',
      createdAt: new Date(),
    });
  expect(await passkeysDao.listFor(person.id)).toEqual([]);
  await unmigrated();
  await migrate(quiet);
  expect((await passkeysDao.listFor(person.id)).map((passkey) => passkey._id)).toEqual(['legacy-credential']);
  const said: string[] = [];
  await migrate({ info: (message: string) => said.push(message) });
  expect(said).toEqual([]);
  expect(await db().collection('migrations').countDocuments()).toBe(6);
});

it('carries back-channel logout records kept one per session and application over to one per session', async () => {
  const person = await createUser();
  await db()
    .collection('oidc_session_clients')
    .insertMany(
      ['app-one', 'app-two'].map((clientId) => ({
        _id: sha256(`legacy-sid ${clientId}`) as never,
        sid: 'legacy-sid',
        userId: person.id,
        clientId,
        createdAt: new Date(),
      })),
    );
  expect(await backchannelDao.takeSession('legacy-sid')).toEqual([]);
  await unmigrated();
  await migrate(quiet);
  expect((await backchannelDao.takePerson(person.id)).map((pair) => pair.clientId).sort()).toEqual(['app-one', 'app-two']);
  expect(await db().collection('oidc_session_clients').countDocuments()).toBe(0);
});
