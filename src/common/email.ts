// One rule for email addresses, applied wherever one is stored or compared: look-alikes of an address
// must not become a second account. NFKC folds compatibility forms (fullwidth letters, ligatures),
// then lower case; invisible and control characters are refused, and so is a label that mixes
// scripts (a Cyrillic "е" among Latin letters), which is how homograph addresses are built.

/** Trimmed, NFKC-normalised and lower-cased: the form in which emails are stored and compared. */
export function normalizeEmail(value: string): string {
  return value.trim().normalize('NFKC').toLowerCase();
}

// \p{C}: control, format (zero-width space, joiners, bidi marks), surrogates, private use, unassigned.
const INVISIBLE_OR_CONTROL = /[\p{C}\p{Z}]/u;

// Scripts a label may be written in; Han, Hiragana and Katakana mix in Japanese, so they count as one.
const SCRIPTS: [string, RegExp][] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Georgian', /\p{Script=Georgian}/u],
  ['Devanagari', /\p{Script=Devanagari}/u],
  ['Thai', /\p{Script=Thai}/u],
  ['Hangul', /\p{Script=Hangul}/u],
  ['CJK', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u],
];

function scriptOf(letter: string): string {
  return SCRIPTS.find(([, pattern]) => pattern.test(letter))?.[0] ?? `other:${letter}`;
}

function mixesScripts(label: string): boolean {
  const scripts = new Set([...label].filter((char) => /\p{L}/u.test(char)).map(scriptOf));
  return scripts.size > 1;
}

/** Why a normalised email is refused, or null when it is acceptable. */
export function emailProblem(normalized: string): string | null {
  if (INVISIBLE_OR_CONTROL.test(normalized)) return 'Email must not contain invisible, space or control characters';
  if (normalized.split(/[@.]/).some(mixesScripts)) return 'Email must not mix letters of different scripts in one part';
  return null;
}
