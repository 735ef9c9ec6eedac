// A refresh token names its record (issue 54): the refresh grant, introspection and revocation read
// the token record by `_id`, the one filter FerretDB answers without reading the whole collection,
// and compare the refresh token's hash; a secret that does not match, or a record id of another
// pair, is refused. A refresh token issued before (no record id in it) still works, by its hash.
import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { sha256 } from '../../src/common/crypto';
import { TokenModel } from '../../src/oauth/tokens/tokens.model';
import { testApp } from '../helpers/app';
import { useMonitoredTestDatabase, watchingCommands } from '../helpers/db';
import { basicAuth, clientSecretPost, passwordGrant } from '../helpers/oauth';

useMonitoredTestDatabase();

/** The filters of the reads of the token records while `work` runs. */
async function tokenReads(work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const filters: Record<string, unknown>[] = [];
  const seen = (event: CommandStartedEvent) => {
    if (event.commandName === 'find' && event.command.find === 'oauth_tokens')
      filters.push(event.command.filter as Record<string, unknown>);
  };
  await watchingCommands(seen, work);
  return filters;
}

const refresh = (app: ReturnType<typeof testApp>, client: { client_id: string; client_secret: string }, token: string) =>
  request(app)
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: 'refresh_token', ...clientSecretPost(client), refresh_token: token });

it('carries the record id of its pair, and the refresh grant reads the record by _id alone', async () => {
  const app = testApp();
  const { client, tokens } = await passwordGrant(app);
  const [recordId, secret] = tokens.refresh_token.split('.');
  expect(recordId).toBe(sha256(tokens.access_token));
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  let answer: request.Response | undefined;
  const filters = await tokenReads(async () => {
    answer = await refresh(app, client, tokens.refresh_token);
  });
  expect(answer?.status).toBe(200);
  expect(filters.length).toBeGreaterThan(0);
  for (const filter of filters) expect(Object.keys(filter)).toEqual(['_id']);
});

it('is found by _id by introspection', async () => {
  const app = testApp();
  const { client, tokens } = await passwordGrant(app);
  let active: unknown;
  const filters = await tokenReads(async () => {
    const res = await request(app)
      .post('/oauth/introspect')
      .set('Authorization', basicAuth(client.client_id, client.client_secret))
      .type('form')
      .send({ token: tokens.refresh_token, token_type_hint: 'refresh_token' })
      .expect(200);
    active = res.body.active;
  });
  expect(active).toBe(true);
  expect(filters.every((filter) => Object.keys(filter).join() === '_id')).toBe(true);
});

it('refuses a refresh token whose secret or record id is not its own', async () => {
  const app = testApp();
  const { client, tokens } = await passwordGrant(app);
  const other = await passwordGrant(app);
  const [recordId] = tokens.refresh_token.split('.');
  const [, otherSecret] = other.tokens.refresh_token.split('.');
  for (const forged of [`${recordId}.${otherSecret}`, `${recordId}.`, `${recordId}.x.y`, `.${otherSecret}`]) {
    const res = await refresh(app, client, forged);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  }
  // The real one still works: nothing was spent by the forgeries.
  await refresh(app, client, tokens.refresh_token).expect(200);
});

it('refuses a refresh token that names no record, without a search by its hash', async () => {
  const app = testApp();
  const { client, tokens } = await passwordGrant(app);
  // A refresh token of the shape issued before they named their record: found by its hash, it would
  // cost a read of the whole collection for anyone who sends a made-up one (docs/decisions.md).
  const older = 'an-older-refresh-token-without-a-record-id-0123456789';
  await TokenModel.updateOne({ _id: sha256(tokens.access_token) }, { $set: { refreshTokenHash: sha256(older) } }).exec();
  let answer: request.Response | undefined;
  const filters = await tokenReads(async () => {
    answer = await refresh(app, client, older);
  });
  expect(answer?.status).toBe(400);
  expect(answer?.body.error).toBe('invalid_grant');
  expect(filters).toEqual([]);
});
