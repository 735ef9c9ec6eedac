// What a start-up failure names of MONGODB_URI: the hosts, never the credentials or options, and a
// Unix socket's path as written on disk (docs/operations.md).
import { hostsOf } from '../../src/db/open';

it.each([
  ['mongodb://admin:hunter2@db1:27017,db2:27017/api?replicaSet=rs0', 'db1:27017,db2:27017'],
  ['mongodb+srv://user:pw@cluster.example.com/api', 'cluster.example.com'],
  ['mongodb://%2Ftmp%2Fdata%2Fferretdb%2Fferretdb.sock/api', '/tmp/data/ferretdb/ferretdb.sock'],
  ['mongodb://bad%zzhost:27017/', 'bad%zzhost:27017'],
])('names %s as %s', (uri, hosts) => {
  expect(hostsOf(uri)).toBe(hosts);
});
