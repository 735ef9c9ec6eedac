// Only the sign-in journey changes who a browser session belongs to or records "Signed in": the lint
// rule that holds it (scripts/journey-lint.cjs, applied by eslint.config.mjs outside src/sign-in/)
// refuses each way round it.
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { JOURNEY_ONLY, SESSION_ONLY } = require('../../scripts/journey-lint.cjs') as Record<
  'JOURNEY_ONLY' | 'SESSION_ONLY',
  { selector: string; message: string }[]
>;

/** Each way round the journey, one line of a controller apiece. */
const BYPASSES = {
  'sets the session’s person': 'req.session.userId = "u";',
  'sets its methods': 'req.session.amr = ["pwd"];',
  'stamps its sign-in time': 'req.session.authTime = 0;',
  'leaves a pending step': 'req.session.pending = {};',
  'names it to applications': 'req.session.oidcSid = "s";',
  'records "Signed in"': 'await activity.record("u", "signed-in", where);',
  'renews the session id': 'await regenerateSession(req);',
};

const linter = new Linter({ configType: 'flat' });
const findings = (code: string, rules = JOURNEY_ONLY) =>
  linter.verify(
    code,
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser, sourceType: 'module' },
      rules: { 'no-restricted-syntax': ['error', ...rules] },
    },
    'src/account/handler.ts',
  );

describe('the sign-in journey’s boundary', () => {
  it.each(Object.entries(BYPASSES))('is refused when a controller %s', (_name, line) => {
    const found = findings(`export async function handler(req: any, activity: any, where: any) {\n  ${line}\n}\n`);
    expect(found.map((finding) => finding.message)).toEqual([expect.stringContaining('Only the sign-in journey')]);
  });

  it('leaves what is no way round it alone: reading the session, other activity, other properties', () => {
    const code = [
      'export async function handler(req: any, activity: any, where: any) {',
      '  const who = req.session.userId;',
      '  req.session.csrfToken = "t";',
      '  await activity.record(who, "factor-added", where);',
      '  req.userId = who;',
      '}',
    ].join('\n');
    expect(findings(code)).toEqual([]);
  });
});

/** Each way of touching the session itself outside its two owners. */
const SESSION_TOUCHES = {
  'reads its person': 'const who = req.session.userId;',
  'writes a field of its own': 'req.session.csrfToken = "t";',
  'reads it whole': 'const { session } = req;',
  'reads its id': 'const id = req.sessionID;',
  'reaches the store': 'req.sessionStore.generate(req);',
};

describe('the session’s two owners', () => {
  it.each(Object.entries(SESSION_TOUCHES))('refuses a controller that %s', (_name, line) => {
    const found = findings(`export async function handler(req: any) {\n  ${line}\n}\n`, SESSION_ONLY);
    expect(found.map((finding) => finding.message)).toEqual([expect.stringContaining('touch req.session')]);
  });

  it('leaves other requests’ fields and other objects’ sessions alone', () => {
    const code = ['export function handler(req: any, stores: any) {', '  return [req.query.session, stores.session, req.ip];', '}'].join(
      '\n',
    );
    expect(findings(code, SESSION_ONLY)).toEqual([]);
  });
});
