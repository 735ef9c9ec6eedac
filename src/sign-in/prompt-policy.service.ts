// The one policy of the sign-in interaction (STYLE.md, "Flows, journeys and the contract";
// node-oidc-provider's interaction_policy is the model): given what the browser's flow asks and owes,
// the account, the session and the time, the one next prompt, or "done". Pure: no I/O. The two facts
// that cost a read (whether the account has a second factor, whether a consent covers the request)
// are handed in when known; a check that needs one that is not answers `need`, and the caller reads it
// and asks again, so a read is made only when the answer depends on it.

/** What the flow asks and owes (an authorization request's parameters, a pending step). */
export interface InteractionAsk {
  /** The request's `prompt` values (`login`, `consent`, `none`, ...). */
  prompt: readonly string[];
  /** `max_age` in seconds. */
  maxAge?: number;
  /** The multi-factor class: asked for as essential, as a wish, or not at all. */
  multiFactor?: 'essential' | 'voluntary' | null;
  /** A step already under way in this browser: a second factor, or a provider account's link, owed. */
  owed?: 'second-factor' | 'link';
  /**
   * A step-up action asked for: a fresh second factor first. `if-any` (turning a factor off, new
   * recovery codes) goes on at once for a person with none to give; `required` (the operator's
   * console) is refused then.
   */
  action?: 'if-any' | 'required';
  /**
   * A person being signed in (nobody is, yet, in this session): after the first factor (a second may
   * be owed), or after the last (a passkey alone, the second factor). Their account must be active.
   */
  signingIn?: 'first-factor' | 'last-factor';
  /** Whether the flow ends in a consent (an application's request); a plain sign-in ends when the person is in. */
  consent: boolean;
}

/** The session's person and how they signed in; null when no one is (or their account is disabled or gone). */
export interface SessionFacts {
  userId: string;
  /** When they signed in (ms). */
  authTime?: number;
  /** Whether the session holds a second factor (amr). */
  multiFactor: boolean;
  /** When a second factor was last given in it (ms), for step-up actions. */
  verifiedAt?: number;
}

/** The reads the policy may need, when the caller made them. */
export interface Facts {
  hasSecondFactor?: boolean;
  consentRemembered?: boolean;
  /** Whether the account being signed in is active (not disabled, still there). */
  accountActive?: boolean;
}

/** How long a second factor given counts as fresh for a step-up action (FACTOR_RULES.freshSignInMs). */
export interface PolicyRules {
  freshMs: number;
}

export type Prompt =
  | { name: 'second-factor' }
  | { name: 'link' }
  | { name: 'login'; reason: 'no-session' | 'prompt-login' | 'max-age' }
  | { name: 'step-up'; reason: 'multi-factor' | 'action' }
  | { name: 'consent' }
  /** `prompt=none` and a page would be needed: the error the client gets (OIDC Core 3.1.2.6). */
  | { name: 'error'; error: 'login_required' | 'consent_required' | 'interaction_required' | 'access_denied' }
  /** Nothing can go on: the account is disabled, or the action needs a second factor the person has not set up. */
  | { name: 'refused'; reason: 'account-disabled' | 'no-second-factor' }
  | { name: 'need'; fact: keyof Facts }
  | { name: 'done' };

/** The next prompt of an interaction, or done. */
export function nextPrompt(ask: InteractionAsk, session: SessionFacts | null, facts: Facts, now: number, rules: PolicyRules): Prompt {
  const silent = ask.prompt.includes('none');
  if (ask.owed) return { name: ask.owed };
  if (ask.signingIn) return signingIn(ask.signingIn, facts);
  const login = loginOwed(ask, session, now);
  if (login) return silent ? { name: 'error', error: 'login_required' } : { name: 'login', reason: login };
  const signedIn = session!;
  if (ask.action && !(signedIn.verifiedAt !== undefined && now - signedIn.verifiedAt < rules.freshMs)) {
    if (facts.hasSecondFactor === undefined) return { name: 'need', fact: 'hasSecondFactor' };
    if (facts.hasSecondFactor) return { name: 'step-up', reason: 'action' };
    if (ask.action === 'required') return { name: 'refused', reason: 'no-second-factor' };
  }
  if (ask.multiFactor && !signedIn.multiFactor) {
    if (silent) return { name: 'error', error: 'interaction_required' };
    if (facts.hasSecondFactor === undefined) return { name: 'need', fact: 'hasSecondFactor' };
    if (facts.hasSecondFactor) return { name: 'step-up', reason: 'multi-factor' };
    if (ask.multiFactor === 'essential') return { name: 'error', error: 'access_denied' };
  }
  if (!ask.consent) return { name: 'done' };
  if (!ask.prompt.includes('consent')) {
    if (facts.consentRemembered === undefined) return { name: 'need', fact: 'consentRemembered' };
    if (facts.consentRemembered) return { name: 'done' };
  }
  return silent ? { name: 'error', error: 'consent_required' } : { name: 'consent' };
}

/** Why the person must sign in (again), or null. */
function loginOwed(ask: InteractionAsk, session: SessionFacts | null, now: number): 'no-session' | 'prompt-login' | 'max-age' | null {
  if (!session) return 'no-session';
  if (ask.prompt.includes('login')) return 'prompt-login';
  const age = session.authTime === undefined ? Infinity : (now - session.authTime) / 1000;
  if (ask.maxAge !== undefined && age > ask.maxAge) return 'max-age';
  return null;
}

/** Someone being signed in: an active account, then the second factor when it has one. */
function signingIn(stage: 'first-factor' | 'last-factor', facts: Facts): Prompt {
  if (facts.accountActive === undefined) return { name: 'need', fact: 'accountActive' };
  if (!facts.accountActive) return { name: 'refused', reason: 'account-disabled' };
  if (stage === 'last-factor') return { name: 'done' };
  if (facts.hasSecondFactor === undefined) return { name: 'need', fact: 'hasSecondFactor' };
  return facts.hasSecondFactor ? { name: 'second-factor' } : { name: 'done' };
}
