// The expiry journal (src/db/expiry-journal.ts): expiring records of the collections that grow with the
// data are written down by the period they expire in, and a sweep deletes a past period's records by
// `_id` alone, then drops its journal; a record whose expiry moved later (a session in use) is written
// down again instead. No sweep reads a collection of records, only the journals that are due.
import type { CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import request from 'supertest';
import { dueAtOf, journalWritten, periodOf, sweepJournals } from '../../src/db/expiry-journal';
import { SessionModel } from '../../src/session/session.model';
import { TokenModel } from '../../src/oauth/tokens/tokens.model';
import { testApp } from '../helpers/app';
import { filtersOf, isBackground, shapeOf, useMonitoredTestDatabase, watchingCommands } from '../helpers/db';
import { sha256 as sha } from '../../src/common/crypto';
import { passwordGrant, registerClient, signedInAgent } from '../helpers/oauth';

useMonitoredTestDatabase();

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const journals = async () =>
  (await mongoose.connection.db!.listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    .filter((name) => name.startsWith('expiring_'));

/** The statements `work` sent, shaped (helpers/db.ts), with the commands no request waits for among them. */
async function statements(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const record = (event: CommandStartedEvent) => {
    const target = String(event.command[event.commandName]);
    const filters = filtersOf(event);
    if (filters.length === 0) seen.push(`${event.commandName} ${target}`);
    for (const filter of filters) seen.push(`${event.commandName} ${target} by ${shapeOf(filter)}`);
  };
  await watchingCommands(record, work);
  return seen;
}

describe('periods', () => {
  const now = new Date('2026-12-01T20:30:00Z');
  it('journals an expiry within two days by its hour, a later one by its day, a past one in the current hour', () => {
    expect(periodOf(new Date('2026-12-01T21:10:00Z'), now)).toEqual({
      name: 'expiring_h2026120121',
      dueAt: Date.parse('2026-12-01T22:00:00Z'),
    });
    expect(periodOf(new Date('2026-12-05T03:00:00Z'), now)).toEqual({
      name: 'expiring_d20261205',
      dueAt: Date.parse('2026-12-06T00:00:00Z'),
    });
    expect(periodOf(new Date('2026-11-01T00:00:00Z'), now).name).toBe('expiring_h2026120120');
  });

  it('reads a journal name back to when it is due, and nothing else as a journal', () => {
    expect(dueAtOf('expiring_h2026120121')).toBe(Date.parse('2026-12-01T22:00:00Z'));
    expect(dueAtOf('expiring_d20261205')).toBe(Date.parse('2026-12-06T00:00:00Z'));
    expect(dueAtOf('oauth_tokens')).toBeNull();
    expect(dueAtOf('expiring_x1')).toBeNull();
  });
});

describe('sweeps', () => {
  const app = testApp({ OAUTH_ACCESS_TOKEN_LIFETIME: '3600', OAUTH_REFRESH_TOKEN_LIFETIME: '7200' });

  it('deletes expired tokens by _id once their period has passed, and drops the journal; later ones stay', async () => {
    const { tokens } = await passwordGrant(app);
    const long = testApp({ OAUTH_ACCESS_TOKEN_LIFETIME: String(30 * 24 * 3600), OAUTH_REFRESH_TOKEN_LIFETIME: String(30 * 24 * 3600) });
    const kept = await passwordGrant(long);
    await journalWritten();
    const due = await journals();
    expect(due.length).toBeGreaterThan(0);
    // Three hours on, the first pair's period (its refresh token's, two hours) has passed.
    const sent = await statements(() => sweepJournals(new Date(Date.now() + 3 * HOUR + 2 * 60_000)));
    const record = (token: string) => TokenModel.findById(sha(token)).lean();
    expect(await record(tokens.access_token)).toBeNull();
    expect(await record(kept.tokens.access_token)).not.toBeNull();
    // Only the journals due were read, and the records deleted by _id alone.
    const onRecords = sent.filter((statement) => !statement.includes(' expiring_') && !statement.startsWith('listCollections'));
    expect(onRecords.length).toBeGreaterThan(0);
    expect(onRecords.every((statement) => statement.endsWith(' by _id'))).toBe(true);
    expect((await journals()).length).toBeLessThan(due.length);
  });

  it('writes a session in use down again for its new expiry, and deletes it once it lapses', async () => {
    const { agent } = await signedInAgent(app);
    await journalWritten();
    const session = (await SessionModel.find().lean()).filter((stored) => stored.userId !== undefined && stored.data !== undefined).pop()!;
    // In use: its expiry moved two days on (as a touch does), so the sweep a day later keeps it.
    await SessionModel.updateOne({ _id: session._id }, { $set: { expiresAt: new Date(Date.now() + 2 * DAY) } });
    await sweepJournals(new Date(Date.now() + DAY + 2 * HOUR));
    await journalWritten();
    expect(await SessionModel.findById(session._id).lean()).not.toBeNull();
    await agent.get('/home').expect(200);
    await sweepJournals(new Date(Date.now() + 3 * DAY + 2 * HOUR));
    expect(await SessionModel.findById(session._id).lean()).toBeNull();
  });

  it('writes the journal of 100 tokens issued at once in a few inserts, which no request waits for', async () => {
    const client = await registerClient({ grants: ['client_credentials'] });
    await journalWritten();
    const sent = await statements(async () => {
      await Promise.all(
        Array.from({ length: 100 }, () =>
          request(app)
            .post('/oauth/token')
            .auth(client.client_id, client.client_secret)
            .type('form')
            .send({ grant_type: 'client_credentials' })
            .expect(200),
        ),
      );
      await journalWritten();
    });
    const journalInserts = sent.filter((statement) => statement.startsWith('insert expiring_'));
    expect(journalInserts.length).toBeLessThanOrEqual(3);
    expect(journalInserts.length).toBeGreaterThan(0);
  });
});

it('leaves the journal out of what a request waits for', () => {
  const event = { commandName: 'insert', command: { insert: 'expiring_h2026120121' } } as unknown as CommandStartedEvent;
  expect(isBackground(event)).toBe(true);
  expect(isBackground({ commandName: 'insert', command: { insert: 'oauth_tokens' } } as unknown as CommandStartedEvent)).toBe(false);
});
