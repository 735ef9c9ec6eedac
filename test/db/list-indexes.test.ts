// The lists people and operators page through (issue 54, item 3): on MongoDB each reads an index range,
// never the whole collection, and this test holds each list's query, as the driver sends it, to the
// index its model declares (helpers/query-plans.ts; docs/operations.md has the table). On FerretDB a
// list reads its collection whatever the index (its sizes and timings are in docs/operations.md).
import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { testApp } from '../helpers/app';
import { shapeOf, useMonitoredTestDatabase, watchingCommands } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { approve, operatorToken, REDIRECT_URI, registerClient, signedInAgent } from '../helpers/oauth';
import { listQueryOf, plan } from '../helpers/query-plans';

useMonitoredTestDatabase();
const app = testApp();

/** Each list query `work` sent (finds and counts whose filter is not `_id` alone), with the index that serves it. */
async function plansOf(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const record = (event: CommandStartedEvent) => {
    const query = listQueryOf(event);
    if (!query || query.collection === 'change_signals' || query.collection.startsWith('expiring_')) return;
    const fields = Object.keys(query.filter);
    if (fields.length === 1 && fields[0] === '_id' && typeof query.filter._id === 'string') return;
    const sorted = Object.keys(query.sort).length > 0 ? ` sorted by ${Object.keys(query.sort).join(',')}` : '';
    seen.push(`${event.commandName} ${query.collection} by ${shapeOf(query.filter)}${sorted} -> ${plan(query) ?? 'NO INDEX'}`);
  };
  await watchingCommands(record, work);
  return [...new Set(seen)];
}

let admin: string;
beforeAll(async () => {
  admin = await operatorToken(app);
});
const asOperator = (path: string) => request(app).get(path).set('Authorization', `Bearer ${admin}`).expect(200);

it('pages and searches the console: people, applications, grants, events and agents, each by an index', async () => {
  const person = await createUser({ firstName: 'Ada', lastName: 'Lovelace' });
  const client = await registerClient({ name: 'Analytical Engine' });
  const { agent } = await signedInAgent(app, person);
  await approve(agent, { response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI });
  const people = await plansOf(async () => {
    await asOperator('/admin/api/people?limit=10');
    await asOperator(`/admin/api/people?limit=10&after=${person.id}`);
    await asOperator(`/admin/api/people?q=${encodeURIComponent(person.email.slice(0, 6))}`);
    // A name's start, in any case: the stored lower-case names are what is searched.
    expect(JSON.stringify((await asOperator('/admin/api/people?q=LOVEL')).body)).toContain(person.id);
  });
  const applications = await plansOf(async () => {
    await asOperator('/admin/api/applications?limit=10');
    expect(JSON.stringify((await asOperator(`/admin/api/applications?q=${encodeURIComponent('ANALYTICAL e')}`)).body)).toContain(
      client.client_id,
    );
    await asOperator(`/admin/api/applications/${client.client_id}/grants`);
  });
  const events = await plansOf(async () => {
    await asOperator('/admin/api/events?limit=10');
    await asOperator(`/admin/api/events?person=${person.id}`);
    await asOperator(`/admin/api/events?application=${client.client_id}`);
    await asOperator('/admin/api/events?kind=signed-in');
  });
  const agents = await plansOf(async () => {
    await asOperator('/admin/api/document-clients');
    await asOperator('/admin/api/exchange-policies');
  });
  expect({ people, applications, events, agents }).toEqual({
    people: [
      'find users by nothing sorted by _id -> _id',
      'find users by _id.$gt sorted by _id -> _id',
      'find users by $or sorted by _id -> email:1 | nameKeys:1',
    ],
    applications: [
      'find oauth_clients by nothing sorted by _id -> _id',
      'find oauth_clients by $or sorted by _id -> _id | nameKey:1',
      'find oauth_grants by clientId sorted by _id -> clientId:1,_id:1',
    ],
    events: [
      'find account_activity by at.$gt sorted by at,_id -> at:1',
      'find account_activity by at.$gt,userId sorted by at,_id -> userId:1,at:-1',
      'find account_activity by at.$gt,clientId sorted by at,_id -> clientId:1,at:-1',
      'find account_activity by at.$gt,kind sorted by at,_id -> kind:1,at:-1',
    ],
    agents: ['find document_clients by nothing sorted by _id -> _id', 'find exchange_policies by nothing sorted by _id -> _id'],
  });
});

it("pages a person's own lists: users, their applications, their grants, their account page, each by an index", async () => {
  const person = await createUser();
  const { agent } = await signedInAgent(app, person);
  const jwt = (await request(app).post('/auth').send({ email: person.email, password: person.password }).expect(201)).body
    .accessToken as string;
  const lists = await plansOf(async () => {
    await request(app).get('/users?limit=10&page=1').expect(200);
    await request(app).get('/oauth/clients').set('Authorization', `Bearer ${jwt}`).expect(200);
    await request(app).get('/oauth/grants').set('Authorization', `Bearer ${jwt}`).expect(200);
    await agent.get('/home').expect(200);
    await agent.get('/account').expect(200);
  });
  expect(lists).toEqual([
    'find users by nothing sorted by uid -> uid:1',
    'find oauth_clients by ownerId sorted by createdAt,_id -> ownerId:1,createdAt:1',
    'find oauth_grants by userId sorted by firstGrantedAt,_id -> userId:1,firstGrantedAt:1',
    'find account_activity by at.$gt,userId sorted by at,_id -> userId:1,at:-1',
  ]);
});
