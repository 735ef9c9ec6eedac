// The rule the lookup tests count by (helpers/db.ts shapeOf, isKeyed), held against the engine: FerretDB
// 1.x hands SQLite a filter only when it is one equality on `_id` (its explain says `filterPushdown`);
// any other filter, `_id` with another field or an operator included, reads the whole collection.
// On another engine (a mongod) there is no such rule to hold, and the test says so.
import mongoose from 'mongoose';
import { isKeyed, shapeOf, useTestDatabase } from '../helpers/db';

useTestDatabase();

const FILTERS: Record<string, unknown>[] = [
  { _id: 'key' },
  { _id: 'key', userId: 'someone' },
  { _id: { $in: ['a', 'b'] } },
  { _id: { $gt: 'a' } },
  { email: 'ada@example.com' },
  { expiresAt: { $lte: new Date() } },
  {},
];

it('keys exactly the filters FerretDB pushes down to SQLite', async () => {
  const db = mongoose.connection.db!;
  const info = await db.admin().command({ buildInfo: 1 });
  if (!info.ferretdbVersion) {
    process.stderr.write('not FerretDB: the pushdown rule is FerretDB 1.x own, nothing to hold\n');
    return;
  }
  await db.collection('probe').insertOne({ _id: 'key' as never, userId: 'someone' });
  for (const filter of FILTERS) {
    const plan = await db.command({ explain: { find: 'probe', filter } });
    expect({ shape: shapeOf(filter), keyed: isKeyed(`find probe by ${shapeOf(filter)}`) }).toEqual({
      shape: shapeOf(filter),
      keyed: plan.filterPushdown === true,
    });
  }
  expect(FILTERS.map((filter) => shapeOf(filter))).toEqual([
    '_id',
    '_id,userId',
    '_id.$in',
    '_id.$gt',
    'email',
    'expiresAt.$lte',
    'nothing',
  ]);
});
