// Values once (issue 35): each content type the server sends, and the lengths every surface shares,
// are written in one place in src/ and imported everywhere else. Reads the source.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '../../src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(path.join(dir, entry.name)) : entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : [],
  );
const sources = files(SRC).map((file) => ({ file: path.relative(SRC, file), text: readFileSync(file, 'utf8') }));

/** The files where `literal` is written, and how often. */
const writtenIn = (literal: RegExp) =>
  sources.flatMap(({ file, text }) => {
    const count = text.match(new RegExp(literal.source, 'g'))?.length ?? 0;
    return count > 0 ? [`${file} ×${count}`] : [];
  });

it.each([
  ['the pages', /'text\/html; charset=utf-8'/],
  ['plain text', /'text\/plain; charset=utf-8'/],
  ['scripts', /'text\/javascript; charset=utf-8'/],
  ['stylesheets', /'text\/css; charset=utf-8'/],
  ['JSON documents', /'application\/json; charset=utf-8'/],
])('writes the content type of %s once', (_what, literal) => {
  expect(writtenIn(literal)).toEqual(['common/content-types.ts ×1']);
});

it.each([
  ['an email address (254)', /(?<!169\.)\b254\b/, 'common/validation.ts ×1'],
  ["a 429's words for programs", /Too many requests, try again later/, 'common/refusals.ts ×1'],
])('writes %s once', (_what, literal, where) => {
  expect(writtenIn(literal)).toEqual([where]);
});
