// Issue 54: the verification page finds a device authorization by its user code through the code's
// key record, `_id` reads only (what FerretDB answers without reading the collection); the key goes
// with the authorization; a taken user code is tried again with another.
import request from 'supertest';
import { DeviceAuthorizationModel, DeviceUserCodeModel } from '../../src/oauth/device/device.model';
import * as deviceService from '../../src/oauth/device/device.service';
import * as deviceDao from '../../src/oauth/device/device.dao';
import { sha256 } from '../../src/common/crypto';
import { DEVICE_CODE_GRANT } from '../../src/oauth/protocol';
import { testApp } from '../helpers/app';
import { useMonitoredTestDatabase } from '../helpers/db';
import { clientSecretPost, csrfFrom, registerClient, signedInAgent } from '../helpers/oauth';

const { shapes } = useMonitoredTestDatabase();
const app = testApp({ OAUTH_DEVICE_POLL_INTERVAL: '1' });

it('finds the authorization a typed user code names by _id alone, and the key goes with it', async () => {
  const client = await registerClient({ grants: [DEVICE_CODE_GRANT] });
  // Other authorizations pending beside it.
  await Promise.all(Array.from({ length: 20 }, () => deviceService.start(client.client_id, ['read'], 5)));
  const started = await request(app)
    .post('/oauth/device_authorization')
    .type('form')
    .send({ ...clientSecretPost(client), scope: 'read' })
    .expect(200);
  const { agent } = await signedInAgent(app);
  const form = await agent.get('/device').expect(200);
  shapes.length = 0;
  const consent = await agent
    .post('/device')
    .type('form')
    .send({ _csrf: csrfFrom(form.text), user_code: started.body.user_code })
    .expect(200);
  await agent
    .post('/device/decision')
    .type('form')
    .send({ _csrf: csrfFrom(consent.text), user_code: started.body.user_code, decision: 'approve' })
    .expect(200);
  const deviceLookups = shapes.filter((shape) => / oauth_device_(authorizations|user_codes) /.test(shape));
  expect(deviceLookups.length).toBeGreaterThan(0);
  expect(deviceLookups.filter((shape) => shape.startsWith('find ') && !shape.endsWith(' by _id'))).toEqual([]);
  const token = await request(app)
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: DEVICE_CODE_GRANT, ...clientSecretPost(client), device_code: started.body.device_code })
    .expect(200);
  expect(token.body.access_token).toEqual(expect.any(String));
  // Spent: the authorization and its key are gone; the others' keys stay.
  expect(await DeviceAuthorizationModel.countDocuments({ clientId: client.client_id }).exec()).toBe(20);
  expect(await DeviceUserCodeModel.countDocuments().exec()).toBe(20);
});

it('never stores two authorizations under one user code, and a key naming none finds nothing', async () => {
  const client = await registerClient({ grants: [DEVICE_CODE_GRANT] });
  const first = await deviceService.start(client.client_id, ['read'], 5);
  const stored = (await DeviceAuthorizationModel.findOne({ clientId: client.client_id }).lean().exec())!;
  const again = await deviceDao.insert({ ...stored, _id: 'another-device-code-hash' });
  expect(again).toBe(false);
  expect(await DeviceAuthorizationModel.countDocuments({ clientId: client.client_id }).exec()).toBe(1);
  expect((await deviceService.findPending(first.userCode))?._id).toBe(stored._id);
  // A key whose authorization is gone (a crash between the two writes) finds nothing.
  await DeviceUserCodeModel.create({ _id: sha256('ORPHANCD'), deviceId: 'gone', expiresAt: new Date(Date.now() + 60_000) });
  expect(await deviceService.findPending('orph-ancd')).toBeNull();
});
