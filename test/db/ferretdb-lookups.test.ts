// FerretDB 1.24 finds a document by _id with `WHERE _ferretdb_sjson->'$._id' = ?` but indexes _id as
// `_ferretdb_sjson->"_id"`, which SQLite does not use for it: a lookup by _id read the table until it
// met the record (a miss among 60,000 tokens took 550 ms here). The embedded engine's wrapper
// (tools/ferretdb/main.go) adds the index the lookups use to every collection's table; this asks
// SQLite itself, with the plan of FerretDB's own statement, whether it reads the index or the table.
// On another engine (a mongod) there is nothing of the kind to hold.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import mongoose from 'mongoose';
import { testDatabaseUri, useTestDatabase } from '../helpers/db';

useTestDatabase();

/** SQLite's plan, per table of the database file, for FerretDB's lookup by _id (python3's sqlite3, read only). */
async function lookupPlans(file: string): Promise<Record<string, string>> {
  const script = `
import json, sqlite3, sys
db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
plans = {}
for (table,) in db.execute('SELECT table_name FROM _ferretdb_collections'):
    rows = db.execute('EXPLAIN QUERY PLAN SELECT _ferretdb_sjson FROM "%s" WHERE _ferretdb_sjson->\\'$._id\\' = ?' % table, ('"x"',)).fetchall()
    plans[table] = ' '.join(row[3] for row in rows)
print(json.dumps(plans))
`;
  const { stdout } = await promisify(execFile)('python3', ['-c', script, file]);
  return JSON.parse(stdout) as Record<string, string>;
}

it('gives every collection the index its lookups by _id use, so SQLite reads the index, not the table', async () => {
  const info = await mongoose.connection.db!.admin().command({ buildInfo: 1 });
  if (!info.ferretdbVersion) {
    process.stderr.write('not FerretDB: no lookup index to hold\n');
    return;
  }
  // The database's file beside the engine's socket (db/ferretdb.ts: FerretDB listens in its data folder).
  const socket = decodeURIComponent(new URL(testDatabaseUri()).host);
  const file = path.join(path.dirname(socket), `${mongoose.connection.db!.databaseName}.sqlite`);
  await mongoose.connection
    .db!.collection('lookup_probe')
    .insertMany(Array.from({ length: 500 }, (_, n) => ({ _id: `probe-${n}` as never })));
  // The wrapper indexes new tables every second: wait for this one, a few seconds at most.
  let plans: Record<string, string> = {};
  for (let tries = 0; tries < 50; tries++) {
    plans = await lookupPlans(file);
    if (Object.values(plans).length > 0 && Object.values(plans).every((plan) => plan.includes('USING INDEX'))) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(Object.keys(plans).length).toBeGreaterThan(0);
  for (const [table, plan] of Object.entries(plans))
    expect({ table, plan }).toEqual({ table, plan: expect.stringMatching(/^SEARCH .* USING INDEX .*__id_lookup/) });
  // A miss reads nothing but the index.
  expect(await mongoose.connection.db!.collection('lookup_probe').findOne({ _id: 'not-there' as never })).toBeNull();
});
