// .env.example lists and explains every setting: the variables it names are exactly those the
// loader in src/config.ts reads (besides XDG_CACHE_HOME, the system's own cache location).
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const SYSTEM_VARIABLES = ['XDG_CACHE_HOME'];

it('names in .env.example exactly the variables the configuration loader reads', () => {
  const example = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
  const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));
  const loader = readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
  const read = new Set([...loader.matchAll(/env, '([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1]));
  for (const name of SYSTEM_VARIABLES) read.delete(name);
  expect(read.size).toBeGreaterThan(40);
  expect([...listed].sort()).toEqual([...read].sort());
});
