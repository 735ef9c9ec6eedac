// The database round trips of one token request, counted with the driver's command monitoring:
// docs/architecture.md walks POST /oauth/token (code + PKCE + openid) and promises at most six.
import type { CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import request from 'supertest';
import { disconnectDatabase } from '../../src/db/mongoose';
import { testApp } from '../helpers/app';
import { testDatabaseUri, uniqueDatabaseName } from '../helpers/db';
import { authorizationCode, codeExchange, pkcePair, registerClient } from '../helpers/oauth';

const app = testApp();
const commands: string[] = [];
const record = (event: CommandStartedEvent) => commands.push(`${event.commandName} ${String(event.command[event.commandName])}`);

beforeAll(async () => {
  await mongoose.connect(testDatabaseUri(), { dbName: uniqueDatabaseName(), autoIndex: true, monitorCommands: true });
  await mongoose.connection.syncIndexes();
  mongoose.connection.getClient().on('commandStarted', record);
});
afterAll(async () => {
  mongoose.connection.getClient().off('commandStarted', record);
  await mongoose.connection.db?.dropDatabase();
  await disconnectDatabase();
});

async function exchange(): Promise<string[]> {
  const client = await registerClient();
  const pkce = pkcePair('S256');
  const { code } = await authorizationCode(app, client, {
    scope: 'openid profile',
    nonce: 'n-0S6_WzA2Mj',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  });
  commands.length = 0;
  const res = await request(app)
    .post('/oauth/token')
    .type('form')
    .send({ ...codeExchange(client, code), code_verifier: pkce.verifier })
    .expect(200);
  expect(res.body.id_token).toEqual(expect.any(String));
  return [...commands];
}

it('exchanges a code with PKCE and openid in at most six database round trips', async () => {
  // The first request of a process also loads the signing keys and sweeps expired records.
  await exchange();
  const seen = await exchange();
  expect(seen.length).toBeLessThanOrEqual(6);
  expect(seen).toContain('insert oauth_tokens');
  // The client is read once.
  expect(seen.filter((command) => command === 'find oauth_clients')).toHaveLength(1);
});
