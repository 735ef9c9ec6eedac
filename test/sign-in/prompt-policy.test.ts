// The interaction's one policy, nextPrompt, as a table: one row per case it covers (no session,
// prompt=login, max_age, the multi-factor class as essential and as a wish, a disabled account, a
// second factor owed, a link owed, a step-up action (and the console's, which requires a factor),
// someone being signed in, consent owed or remembered, prompt=none) and
// their combinations. Pure: the facts that cost a read are asked for (`need`) only when they matter.
import { nextPrompt, type Facts, type InteractionAsk, type Prompt, type SessionFacts } from '../../src/sign-in/prompt-policy.service';

const NOW = 1_900_000_000_000;
const RULES = { freshMs: 10 * 60_000 };
const minutesAgo = (minutes: number) => NOW - minutes * 60_000;

const app: InteractionAsk = { prompt: [], consent: true };
const plain: InteractionAsk = { prompt: [], consent: false };
const onePassword: SessionFacts = { userId: 'u', authTime: minutesAgo(5), multiFactor: false };
const twoFactors: SessionFacts = { userId: 'u', authTime: minutesAgo(5), multiFactor: true, verifiedAt: minutesAgo(5) };
const oldTwoFactors: SessionFacts = { userId: 'u', authTime: minutesAgo(60), multiFactor: true, verifiedAt: minutesAgo(60) };
const known: Facts = { hasSecondFactor: true, consentRemembered: true };

const rows: [string, InteractionAsk, SessionFacts | null, Facts, Prompt][] = [
  // Who is signed in.
  ['no session: sign in', app, null, {}, { name: 'login', reason: 'no-session' }],
  ['a disabled account reads as no session: sign in', app, null, known, { name: 'login', reason: 'no-session' }],
  ['no session, prompt=none: login_required', { ...app, prompt: ['none'] }, null, {}, { name: 'error', error: 'login_required' }],
  ['prompt=login: sign in again', { ...app, prompt: ['login'] }, twoFactors, known, { name: 'login', reason: 'prompt-login' }],
  ['max_age passed: sign in again', { ...app, maxAge: 60 }, onePassword, known, { name: 'login', reason: 'max-age' }],
  ['max_age not passed: on', { ...app, maxAge: 600 }, onePassword, known, { name: 'done' }],
  [
    'max_age=0 after any time: sign in again',
    { ...app, maxAge: 0 },
    { ...onePassword, authTime: NOW - 1000 },
    known,
    { name: 'login', reason: 'max-age' },
  ],
  [
    'no auth_time with max_age: sign in again',
    { ...app, maxAge: 600 },
    { userId: 'u', multiFactor: false },
    known,
    { name: 'login', reason: 'max-age' },
  ],
  [
    'max_age passed, prompt=none: login_required',
    { ...app, maxAge: 60, prompt: ['none'] },
    onePassword,
    known,
    { name: 'error', error: 'login_required' },
  ],
  // Steps under way come first, whatever else is asked.
  ['a second factor owed', { ...plain, owed: 'second-factor' }, null, {}, { name: 'second-factor' }],
  ['a link owed', { ...plain, owed: 'link' }, null, {}, { name: 'link' }],
  ['a link owed while a step-up is asked', { ...plain, owed: 'link', action: 'if-any' }, onePassword, {}, { name: 'link' }],
  // The multi-factor class.
  [
    'essential acr, one factor: ask whether there is a second',
    { ...app, multiFactor: 'essential' },
    onePassword,
    {},
    { name: 'need', fact: 'hasSecondFactor' },
  ],
  [
    'essential acr, one factor, has a second: step-up',
    { ...app, multiFactor: 'essential' },
    onePassword,
    known,
    { name: 'step-up', reason: 'multi-factor' },
  ],
  [
    'essential acr, no second factor: access_denied',
    { ...app, multiFactor: 'essential' },
    onePassword,
    { hasSecondFactor: false },
    { name: 'error', error: 'access_denied' },
  ],
  [
    'voluntary acr, no second factor: on to consent',
    { ...app, multiFactor: 'voluntary' },
    onePassword,
    { hasSecondFactor: false },
    { name: 'need', fact: 'consentRemembered' },
  ],
  [
    'essential acr, two factors: no step-up',
    { ...app, multiFactor: 'essential' },
    twoFactors,
    { consentRemembered: true },
    { name: 'done' },
  ],
  [
    'essential acr with a remembered consent: the step-up still comes first',
    { ...app, multiFactor: 'essential' },
    onePassword,
    known,
    { name: 'step-up', reason: 'multi-factor' },
  ],
  [
    'acr asked with prompt=none: interaction_required',
    { ...app, multiFactor: 'voluntary', prompt: ['none'] },
    onePassword,
    known,
    { name: 'error', error: 'interaction_required' },
  ],
  [
    'prompt=login with essential acr: sign in first',
    { ...app, multiFactor: 'essential', prompt: ['login'] },
    onePassword,
    known,
    { name: 'login', reason: 'prompt-login' },
  ],
  // Step-up actions (turning a factor off, new recovery codes, the console).
  [
    'a step-up action, one factor: ask whether there is a second',
    { ...plain, action: 'if-any' },
    onePassword,
    {},
    { name: 'need', fact: 'hasSecondFactor' },
  ],
  [
    'a step-up action, a factor to give: step-up',
    { ...plain, action: 'if-any' },
    onePassword,
    { hasSecondFactor: true },
    { name: 'step-up', reason: 'action' },
  ],
  ['a step-up action, nothing to give: done', { ...plain, action: 'if-any' }, onePassword, { hasSecondFactor: false }, { name: 'done' }],
  ['a step-up action after a fresh second factor: done, nothing read', { ...plain, action: 'if-any' }, twoFactors, {}, { name: 'done' }],
  [
    'a step-up action after an old second factor: step-up',
    { ...plain, action: 'if-any' },
    oldTwoFactors,
    known,
    { name: 'step-up', reason: 'action' },
  ],
  [
    'a step-up action and essential acr after an old second factor: the action asks',
    { ...app, action: 'if-any', multiFactor: 'essential' },
    oldTwoFactors,
    known,
    { name: 'step-up', reason: 'action' },
  ],
  [
    'the console (an action that requires a second factor), none set up: refused',
    { ...plain, action: 'required' },
    onePassword,
    { hasSecondFactor: false },
    { name: 'refused', reason: 'no-second-factor' },
  ],
  ['the console after a fresh second factor: done, nothing read', { ...plain, action: 'required' }, twoFactors, {}, { name: 'done' }],
  [
    'the console after an old second factor: step-up',
    { ...plain, action: 'required' },
    oldTwoFactors,
    known,
    { name: 'step-up', reason: 'action' },
  ],
  // Someone being signed in: an active account, then the second factor.
  [
    'signing in, the account not read yet: ask whether it is active',
    { ...plain, signingIn: 'first-factor' },
    null,
    {},
    { name: 'need', fact: 'accountActive' },
  ],
  [
    'signing in to a disabled account: refused, its factors never read',
    { ...plain, signingIn: 'first-factor' },
    null,
    { accountActive: false },
    { name: 'refused', reason: 'account-disabled' },
  ],
  [
    'signing in, active: ask whether a second factor is owed',
    { ...plain, signingIn: 'first-factor' },
    null,
    { accountActive: true },
    { name: 'need', fact: 'hasSecondFactor' },
  ],
  [
    'signing in, active, with a second factor: the second step',
    { ...plain, signingIn: 'first-factor' },
    null,
    { accountActive: true, hasSecondFactor: true },
    { name: 'second-factor' },
  ],
  [
    'signing in, active, no second factor: done',
    { ...plain, signingIn: 'first-factor' },
    null,
    { accountActive: true, hasSecondFactor: false },
    { name: 'done' },
  ],
  [
    'a passkey alone or the second factor given, disabled meanwhile: refused',
    { ...plain, signingIn: 'last-factor' },
    null,
    { accountActive: false },
    { name: 'refused', reason: 'account-disabled' },
  ],
  [
    'a passkey alone or the second factor given, active: done, factors not read',
    { ...plain, signingIn: 'last-factor' },
    null,
    { accountActive: true },
    { name: 'done' },
  ],
  [
    'signing in over someone else’s session: the same rules (the session is not theirs)',
    { ...app, signingIn: 'first-factor' },
    twoFactors,
    { accountActive: true, hasSecondFactor: true },
    { name: 'second-factor' },
  ],
  [
    'a link owed for a disabled account: the link page first (the sign-in after it refuses)',
    { ...plain, owed: 'link', signingIn: 'first-factor' },
    null,
    { accountActive: false },
    { name: 'link' },
  ],
  // Consent.
  ['consent unknown: read it', app, onePassword, {}, { name: 'need', fact: 'consentRemembered' }],
  ['consent remembered: done', app, onePassword, { consentRemembered: true }, { name: 'done' }],
  ['consent owed: the page', app, onePassword, { consentRemembered: false }, { name: 'consent' }],
  ['prompt=consent: the page, nothing read', { ...app, prompt: ['consent'] }, onePassword, {}, { name: 'consent' }],
  [
    'consent owed, prompt=none: consent_required',
    { ...app, prompt: ['none'] },
    onePassword,
    { consentRemembered: false },
    { name: 'error', error: 'consent_required' },
  ],
  ['consent remembered, prompt=none: done', { ...app, prompt: ['none'] }, onePassword, { consentRemembered: true }, { name: 'done' }],
  ['a plain sign-in with someone signed in: done, nothing read', plain, onePassword, {}, { name: 'done' }],
];

it.each(rows)('%s', (_name, ask, session, facts, expected) => {
  expect(nextPrompt(ask, session, facts, NOW, RULES)).toEqual(expected);
});

it('asks for each fact at most once: answering what it needs always moves it on', () => {
  for (const [, ask, session] of rows) {
    const facts: Facts = {};
    let prompt = nextPrompt(ask, session, facts, NOW, RULES);
    for (let round = 0; prompt.name === 'need'; round++) {
      expect(round).toBeLessThan(2);
      expect(facts[prompt.fact]).toBeUndefined();
      facts[prompt.fact] = true;
      prompt = nextPrompt(ask, session, facts, NOW, RULES);
    }
  }
});
