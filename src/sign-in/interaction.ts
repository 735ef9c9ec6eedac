// The sign-in interaction (docs/architecture.md, "The sign-in journey"): the one place that decides
// what comes after each step of getting in, for every way in (a password, GitHub, a passkey alone, a
// reset link, a new account) and every step-up (acr_values=2, turning off a factor, new recovery
// codes). With the session middleware, the only module that reads or writes `req.session`: it alone
// changes who a browser session belongs to, issues new session ids and writes the "Signed in" entry.
// Where pages send the browser, and why the step-up page asks, are journey.service.ts (no HTTP).
//
//   started ──password / GitHub / OpenID provider / reset──▶ second factor pending ──code or passkey──▶ signed in
//      │  └───────── no second factor on the account ──────────────────────────────▶ signed in
//      └──passkey alone (it checked the person) ─────────────────────────────────────▶ signed in
//   signed in ──step-up──▶ second factor pending ──code or passkey──▶ the action carried out, then back
//
// The pending state lives in the session, is used once, and expires after FACTOR_RULES.pendingLifetimeMs.
import type { Request, Response } from 'express';
import type { SessionData } from 'express-session';
import type { ActivityLog } from '../account/activity.service';
import type { Clock } from '../common/clock';
import { randomToken } from '../common/crypto';
import { clientAddress, displayAddress, releaseHits } from '../common/rate-limit';
import { deviceName } from '../common/user-agent';
import * as factorsService from '../factors/factors.service';
import { FACTOR_RULES } from '../factors/factors.service';
import { REMEMBER_ME_MS, saveSession, regenerateSession, type SessionEndedHook } from '../session/session.middleware';
import { createSessionCapSchedule, endSessionsBeyondCap, safeReturnTo } from '../session/session.service';

import { signInLocation } from './journey.service';
import { nextPrompt } from './prompt-policy.service';
import type { FirstStep, Journey, PendingStep, SecondFactor, StepUpAction, StepUpActions } from './journey.types';

export interface JourneyDeps {
  clock: Clock;
  activity: ActivityLog;
  actions: StepUpActions;
  /** Sessions ended for the account's cap (back-channel logout). */
  sessionEnded: SessionEndedHook;
  /**
   * Answers, in this response, the authorization request a sign-in came from when it needs nothing
   * more of the person (the authorization endpoint's `resume`); false to send the browser there.
   */
  resume?: (req: Request, res: Response, location: string) => Promise<boolean>;
}

const VERIFY = '/login/verify';

export function createJourney({ clock, activity, actions, sessionEnded, resume }: JourneyDeps): Journey {
  const capDue = createSessionCapSchedule();
  const device = (req: Request) => ({ address: displayAddress(req), detail: deviceName(req.get('User-Agent')) });
  const origin = (req: Request, how: string) => ({ address: displayAddress(req), detail: `${how}, ${device(req).detail}` });

  /** A signed-in session under a new id (no session fixation), stored before the answer goes out. */
  async function startSession(req: Request, userId: string, remember: boolean, amr: string[]): Promise<void> {
    await regenerateSession(req);
    const { session } = req;
    session.userId = userId;
    session.authTime = clock.now();
    session.amr = amr;
    session.oidcSid = randomToken(16);
    // Made now and stored with the session: made while a page renders, express-session would store it
    // only as that page's last byte goes out, and a quick click could arrive before it is stored.
    session.csrfToken = randomToken();
    session.device = (req.get('User-Agent') ?? '').slice(0, MAX_DEVICE_LENGTH);
    session.address = displayAddress(req);
    if (remember) session.cookie.maxAge = REMEMBER_ME_MS;
    await saveSession(req);
  }

  /** Signed in: the session, the one activity entry, and where to go. */
  async function signedIn(req: Request, step: Omit<PendingStep, 'kind' | 'at' | 'factors'>): Promise<string> {
    await startSession(req, step.userId, step.remember, step.amr);
    await activity.record(step.userId, 'signed-in', origin(req, step.via));
    if (capDue(step.userId)) for (const ended of await endSessionsBeyondCap(step.userId, req.sessionID)) await sessionEnded(ended);
    return step.returnTo;
  }

  /**
   * Where a finished step leads: the application's request answered at once when it can (a code with
   * consent remembered), else the browser sent there (303 after a form, 302 after a GET).
   */
  async function go(req: Request, res: Response, location: string): Promise<void> {
    if (resume && (await resume(req, res, location))) return;
    res.redirect(req.method === 'GET' ? 302 : 303, location);
  }

  /** Keeps the pending step in the session (a new one unless it is a step-up's) and sends the browser to the second step. */
  async function hold(req: Request, res: Response, step: Omit<PendingStep, 'at'>): Promise<void> {
    if (step.kind === 'sign-in') await regenerateSession(req);
    req.session.pending = { ...step, at: clock.now() };
    await saveSession(req);
    // After a form, 303; after a GET (a provider's callback, the step-up link), 302.
    res.redirect(req.method === 'GET' ? 302 : 303, VERIFY);
  }

  /** The same session's data under a new id (its level changed), less the pending step, with `changes`. */
  async function renew(req: Request, changes: Partial<SessionData>): Promise<void> {
    const { cookie, pending: _pending, ...data } = req.session;
    const maxAge = cookie?.maxAge;
    await regenerateSession(req);
    Object.assign(req.session, data, changes);
    if (maxAge) req.session.cookie.maxAge = maxAge;
  }

  /** A step-up's action carried out; codes it made are kept for the next page. Where to go. */
  async function carryOut(req: Request, action: StepUpAction, userId: string): Promise<string> {
    const done = await actions(action, { userId, origin: device(req) });
    if (done.newRecoveryCodes) req.session.newRecoveryCodes = done.newRecoveryCodes;
    return done.location;
  }

  /**
   * The policy's answer for a step-up action (nextPrompt): the factors the person can give when one is
   * owed, else null; the factors are read only when the session's own second factor is not fresh.
   */
  async function stepUpOwed(session: Partial<SessionData>, userId: string): Promise<factorsService.FactorKinds | null> {
    const multiFactor = factorsService.isMultiFactor(session.amr);
    const facts = { userId, authTime: session.authTime, multiFactor, verifiedAt: multiFactor ? session.authTime : undefined };
    const ask = { prompt: [], consent: false, action: true };
    const rules = { freshMs: FACTOR_RULES.freshSignInMs };
    let prompt = nextPrompt(ask, facts, {}, clock.now(), rules);
    if (prompt.name !== 'need') return null;
    const kinds = await factorsService.secondFactors(userId);
    prompt = nextPrompt(ask, facts, { hasSecondFactor: kinds !== null }, clock.now(), rules);
    return prompt.name === 'step-up' ? kinds : null;
  }

  const freshlyVerified = (session: Partial<SessionData>): boolean =>
    factorsService.isMultiFactor(session.amr) &&
    session.authTime !== undefined &&
    clock.now() - session.authTime < FACTOR_RULES.freshSignInMs;

  return {
    /**
     * A first step was right (a password, a provider, a reset link, a new account): signed in, or on to
     * the second step when the account has a second factor. Answers the browser.
     */
    async firstFactor(req: Request, res: Response, step: FirstStep): Promise<void> {
      const pending = {
        userId: step.userId,
        amr: step.amr ?? [step.method],
        remember: step.remember,
        returnTo: step.returnTo,
        via: step.via,
      };
      // The account's hint, read with the password, spares the look at its factors: none, or which.
      const factors =
        step.secondFactor === false
          ? null
          : step.secondFactor && step.factorKinds
            ? step.factorKinds
            : await factorsService.secondFactors(step.userId);
      if (factors) return hold(req, res, { kind: 'sign-in', ...pending, factors, ...(step.held && { held: step.held }) });
      // No second factor after all (the record's hint was stale): the password's hits go back.
      if (step.held) await releaseHits(step.held);
      await go(req, res, await signedIn(req, pending));
    },

    /** After a step that returned where to go (the second factor): on there, or the application answered now. */
    go,

    /** A passkey alone (it checked the person itself: user verification is required): signed in; where to go. */
    passkey(req: Request, step: { userId: string; method: 'hwk' | 'swk'; returnTo: string }): Promise<string> {
      return signedIn(req, { userId: step.userId, amr: [step.method], remember: false, returnTo: step.returnTo, via: 'passkey' });
    },

    /** The password changed (every session ended): this browser goes on as the same person, as strongly as before. */
    async renewed(req: Request, userId: string): Promise<void> {
      const { amr = ['pwd'], authTime } = req.session;
      await startSession(req, userId, false, amr);
      if (authTime !== undefined) req.session.authTime = authTime;
      await saveSession(req);
    },

    /**
     * Before a factor is added: an account that has one needs a second factor from the last 10
     * minutes, one without a sign-in from the last 10 minutes (docs/security.md, Changing factors).
     * Null when the session may go on; otherwise where the browser goes first (the second step, its
     * pending step kept, or the sign-in page), coming back to `returnTo`.
     */
    async confirmBeforeAdding(req: Request, ask: { userId: string; returnTo: string }): Promise<string | null> {
      const { session } = req;
      if (freshlyVerified(session)) return null;
      const factors = await factorsService.secondFactors(ask.userId);
      if (!factors) {
        const recent = session.authTime !== undefined && clock.now() - session.authTime < FACTOR_RULES.freshSignInMs;
        return recent ? null : signInLocation(ask.returnTo, { again: true });
      }
      const amr = session.amr ?? ['pwd'];
      session.pending = {
        kind: 'step-up',
        userId: ask.userId,
        amr,
        remember: false,
        returnTo: ask.returnTo,
        factors,
        via: 'second factor',
        at: clock.now(),
      };
      await saveSession(req);
      return VERIFY;
    },

    /**
     * A factor was just added and proven (the app's first code, a passkey with user verification): the
     * session counts it from now on, under a new id.
     */
    async factorAdded(req: Request, factor: SecondFactor): Promise<void> {
      await renew(req, { amr: factorsService.strengthened(req.session.amr ?? ['pwd'], factor) });
      await saveSession(req);
    },

    /**
     * A signed-in person asked for more than their session gives: the second step, then the action (or
     * back to `returnTo`). Without a second factor to give there is nothing to ask: straight on.
     */
    async stepUp(req: Request, res: Response, ask: { userId: string; returnTo: string; action?: StepUpAction }): Promise<void> {
      // A second factor given in the last 10 minutes, or none to give: nothing to ask (the policy says).
      const factors = await stepUpOwed(req.session, ask.userId);
      if (!factors) {
        const location = ask.action ? await carryOut(req, ask.action, ask.userId) : ask.returnTo;
        await saveSession(req);
        return void res.redirect(req.method === 'GET' ? 302 : 303, location);
      }
      const amr = req.session.amr ?? ['pwd'];
      const step = { kind: 'step-up' as const, userId: ask.userId, amr, remember: false, returnTo: ask.returnTo, action: ask.action };
      return hold(req, res, { ...step, factors, via: 'second factor' });
    },

    /** The session gave a second factor in the last 10 minutes (what the operator's console asks). */
    freshlyVerified: (req: Request): boolean => freshlyVerified(req.session),

    /** The step waiting for a second factor in this browser, while it is fresh. */
    pending(req: Request): PendingStep | null {
      const pending = req.session?.pending;
      if (!pending || clock.now() - pending.at >= FACTOR_RULES.pendingLifetimeMs) return null;
      // A step-up belongs to the session's own person; anything else is stale.
      if (pending.kind === 'step-up' && pending.userId !== req.session.userId) return null;
      return pending;
    },

    /**
     * The second factor was given: the pending step is used up, and the person is signed in (a new
     * session) or, for a step-up, the session is renewed under a new id with the stronger methods and
     * the action is carried out. Returns where the browser goes next.
     */
    async secondFactor(req: Request, pending: PendingStep, factor: SecondFactor, via: string): Promise<string> {
      // The password's hits, unless the factor's check took them back with its own (pass `held: undefined`).
      if (pending.held?.length) await releaseHits(pending.held);
      const amr = factorsService.strengthened(pending.amr, factor);
      if (pending.kind === 'sign-in') return signedIn(req, { ...pending, amr, via: `${pending.via} and ${via}` });
      // A step-up: the same person, a new session id (a copy of the weaker session's id gains nothing).
      await renew(req, { amr, authTime: clock.now() });
      await activity.record(pending.userId, 'verified-again', origin(req, via));
      const location = pending.action ? await carryOut(req, pending.action, pending.userId) : pending.returnTo;
      await saveSession(req);
      return location;
    },

    /** A wrong second factor: a failed sign-in in the account's activity. */
    async secondFactorFailed(req: Request, pending: PendingStep): Promise<void> {
      await activity.record(pending.userId, 'sign-in-failed', origin(req, 'second factor'));
    },

    takeNewRecoveryCodes(req: Request): string[] | null {
      const codes = req.session?.newRecoveryCodes;
      if (!codes) return null;
      delete req.session.newRecoveryCodes;
      return codes;
    },

    /** Where a step ends when no sign-in waits any more (expired, used, or never started). */
    nothingPending: (req: Request): string => (req.session?.userId ? '/account' : '/login'),

    /** The return path a request names, kept local (anything else is /home). */
    returnTo: (value: unknown): string => safeReturnTo(value),

    /** For requests that count against the sign-in budget: the client address. */
    address: clientAddress,
  };
}

const MAX_DEVICE_LENGTH = 200;
