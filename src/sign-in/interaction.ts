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
// What a flow owes (a second factor, a provider account's link, recovery codes to show once) is an
// interaction record (interaction.model.ts), named by a short-lived cookie: used once, expired after
// FACTOR_RULES.pendingLifetimeMs, each stage a new record under a new id. The session holds only who is
// signed in and how.
import type { Request, Response } from 'express';
import type { SessionData } from 'express-session';
import type { ActivityLog } from '../account/activity.service';
import type { Clock } from '../common/clock';
import { cookieValue } from '../common/cookies';
import { randomToken } from '../common/crypto';
import { throttled } from '../db/sweeper';
import type { PendingLink } from '../upstream/upstream.types';
import type { BrowserCookies } from '../web/cookies';
import {
  clientAddress,
  displayAddress,
  giveBackMarks,
  limitRule,
  releaseHits,
  reserve,
  useOnce,
  type SingleUse,
} from '../common/rate-limit';
import { deviceName } from '../common/user-agent';
import * as factorsService from '../factors/factors.service';
import { FACTOR_RULES } from '../factors/factors.service';
import { PasskeyRefused } from '../factors/passkeys.service';
import * as usersService from '../users/users.service';
import { pageError } from '../web/layout';
import { REMEMBER_ME_MS, saveSession, regenerateSession, sessionNeedsSlot, type SessionEndedHook } from '../session/session.middleware';
import { findSlotFor, safeReturnTo } from '../session/session.service';

import { signInLocation } from './journey.service';
import * as interactions from './interaction.dao';
import { nextPrompt, type Facts, type InteractionAsk, type Prompt, type SessionFacts } from './prompt-policy.service';
import {
  DECISION_ID,
  type DecisionHold,
  type DecisionLimits,
  type FirstStep,
  type Journey,
  type PendingStep,
  type SecondFactor,
  type StepUpAction,
  type StepUpActions,
} from './journey.types';

export interface JourneyDeps {
  clock: Clock;
  /** The browser cookies' rule (web/cookies.ts): the interaction cookie's name and flags. */
  cookies: BrowserCookies;
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
/** The interaction cookie's name before its https prefix; its value is the record's id. */
export const INTERACTION_COOKIE = 'interaction';
const ID_SHAPE = /^[\w-]{32}$/;

/** What one request knows of its browser's interaction: the id its cookie named, and the record once read. */
interface Held {
  id?: string;
  record?: interactions.InteractionContent | null;
}

export function createJourney({ clock, cookies, activity, actions, sessionEnded, resume }: JourneyDeps): Journey {
  const cookieName = cookies.name(INTERACTION_COOKIE);
  const sweep = throttled(60_000, interactions.removeExpired);
  const held = new WeakMap<Request, Held>();

  function heldBy(req: Request): Held {
    let known = held.get(req);
    if (!known) {
      const id = cookieValue(req, cookieName);
      known = { id: id && ID_SHAPE.test(id) ? id : undefined };
      held.set(req, known);
    }
    return known;
  }

  /** The browser's unfinished interaction, while it is fresh; read once per request. */
  async function current(req: Request): Promise<interactions.InteractionContent | null> {
    const known = heldBy(req);
    if (known.record !== undefined) return known.record;
    sweep(new Date(clock.now()));
    const found = known.id ? await interactions.find(known.id) : null;
    known.record = found && found.expiresAt.getTime() > clock.now() ? found : null;
    return known.record;
  }

  /** A new interaction for this browser (a new id: never the one before), replacing the one its cookie named. */
  async function open(req: Request, res: Response, content: interactions.InteractionContent): Promise<void> {
    const known = heldBy(req);
    const id = randomToken(24);
    await interactions.insert(id, content, new Date(clock.now() + FACTOR_RULES.pendingLifetimeMs));
    if (known.id) await interactions.remove(known.id);
    held.set(req, { id, record: content });
    res.cookie(cookieName, id, { ...cookies.options, maxAge: FACTOR_RULES.pendingLifetimeMs });
  }

  /**
   * The mark that uses a pending step up (docs/decisions.md): a unique insert, which the factor's check
   * can send in the same command as its budget hits. The record itself lapses at its expiry.
   */
  function useOf(pending: PendingStep): SingleUse {
    return { id: `interaction:${pending.interaction}`, expiresAt: new Date(pending.at + FACTOR_RULES.pendingLifetimeMs) };
  }

  /** The browser forgets its interaction (the cookie cleared); the record is left to lapse. */
  function forget(req: Request, res: Response): void {
    held.set(req, { record: null });
    res.clearCookie(cookieName, { ...cookies.options });
  }

  /** Ends the browser's interaction: true for the one request that ended it (it is used once). */
  async function close(req: Request, res: Response): Promise<boolean> {
    const { id } = heldBy(req);
    if (!id) return false;
    forget(req, res);
    return interactions.remove(id);
  }
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
  async function signedIn(req: Request, res: Response, step: Omit<PendingStep, 'kind' | 'at' | 'factors'>): Promise<string> {
    // A flow this browser left unfinished (a link, a second step) ends with the sign-in.
    if (heldBy(req).id) await close(req, res);
    await startSession(req, step.userId, step.remember, step.amr);
    await activity.record(step.userId, 'signed-in', origin(req, step.via));
    // Past the cap of signed-in browsers: the one to end first goes (session.service.ts findSlotFor).
    if (sessionNeedsSlot(req)) for (const ended of await findSlotFor(step.userId, req.sessionID)) await sessionEnded(ended);
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

  /** Keeps the pending step as the browser's interaction and sends the browser to the second step. */
  async function hold(req: Request, res: Response, step: Omit<PendingStep, 'at'>): Promise<void> {
    await open(req, res, { step: { ...step, at: clock.now() } });
    // After a form, 303; after a GET (a provider's callback, the step-up link), 302.
    res.redirect(req.method === 'GET' ? 302 : 303, VERIFY);
  }

  /** The same session's data under a new id (its level changed), with `changes`. */
  async function renew(req: Request, changes: Partial<SessionData>): Promise<void> {
    const { cookie, ...data } = req.session;
    const maxAge = cookie?.maxAge;
    await regenerateSession(req);
    Object.assign(req.session, data, changes);
    if (maxAge) req.session.cookie.maxAge = maxAge;
  }

  /** A step-up's action carried out; codes it made are kept for the next page, as an interaction. Where to go. */
  async function carryOut(req: Request, res: Response, action: StepUpAction, userId: string): Promise<string> {
    const done = await actions(action, { userId, origin: device(req) });
    if (done.newRecoveryCodes) await open(req, res, { codes: done.newRecoveryCodes, owner: userId });
    return done.location;
  }

  const rules = { freshMs: FACTOR_RULES.freshSignInMs };

  /**
   * Asks the policy (nextPrompt) until it answers, making a read only when it names the fact it needs
   * (each read answers its fact for good, so it asks at most once per fact).
   */
  async function decide(
    ask: InteractionAsk,
    session: SessionFacts | null,
    reads: Partial<Record<keyof Facts, () => Promise<boolean>>>,
  ): Promise<Prompt> {
    const facts: Facts = {};
    for (;;) {
      const prompt = nextPrompt(ask, session, facts, clock.now(), rules);
      if (prompt.name !== 'need') return prompt;
      const read = reads[prompt.fact];
      if (!read || facts[prompt.fact] !== undefined) throw new Error(`the policy needs ${prompt.fact}, which this flow cannot read`);
      facts[prompt.fact] = await read();
    }
  }

  /** What the policy says of a step-up action for the session's person, and the factors they can give (read only when it asks). */
  async function stepUpOwed(session: Partial<SessionData>, userId: string, action: 'if-any' | 'required') {
    const multiFactor = factorsService.isMultiFactor(session.amr);
    const facts = { userId, authTime: session.authTime, multiFactor, verifiedAt: multiFactor ? session.authTime : undefined };
    let kinds: factorsService.FactorKinds | null = null;
    const hasSecondFactor = async () => (kinds = await factorsService.secondFactors(userId)) !== null;
    const prompt = await decide({ prompt: [], consent: false, action }, facts, { hasSecondFactor });
    return { prompt, kinds: kinds as factorsService.FactorKinds | null };
  }

  /** Whether an account is active, read now unless the caller just found it so. */
  const activeNow = (userId: string, known?: true) => async () => known ?? usersService.isActive(await usersService.findById(userId));

  /** The step-up's second step held (the session's own person), and the browser sent there. */
  function holdStepUp(
    req: Request,
    res: Response,
    ask: { userId: string; returnTo: string; action?: StepUpAction },
    factors: factorsService.FactorKinds,
  ): Promise<void> {
    const amr = req.session.amr ?? ['pwd'];
    const step = { kind: 'step-up' as const, userId: ask.userId, amr, remember: false, returnTo: ask.returnTo, action: ask.action };
    return hold(req, res, { ...step, factors, via: 'second factor' });
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
      let factors: factorsService.FactorKinds | null = step.secondFactor && step.factorKinds ? step.factorKinds : null;
      const hasSecondFactor = async () => {
        if (step.secondFactor === false) return false;
        factors ??= await factorsService.secondFactors(step.userId);
        return factors !== null;
      };
      const reads = { accountActive: activeNow(step.userId, step.active), hasSecondFactor };
      const prompt = await decide({ prompt: [], consent: false, signingIn: 'first-factor' }, null, reads);
      if (prompt.name === 'refused') {
        if (step.held) await releaseHits(step.held);
        throw pageError(403, 'Account disabled', 'This account has been disabled. Please contact the operator of this server.');
      }
      if (prompt.name === 'second-factor') {
        return hold(req, res, { kind: 'sign-in', ...pending, factors: factors!, ...(step.held && { held: step.held }) });
      }
      // No second factor after all (the record's hint was stale): the password's hits go back.
      if (step.held) await releaseHits(step.held);
      await go(req, res, await signedIn(req, res, pending));
    },

    /** After a step that returned where to go (the second factor): on there, or the application answered now. */
    go,

    /** A passkey alone (it checked the person itself: user verification is required): signed in; where to go. */
    async passkey(req: Request, res: Response, step: { userId: string; method: 'hwk' | 'swk'; returnTo: string }): Promise<string> {
      const prompt = await decide({ prompt: [], consent: false, signingIn: 'last-factor' }, null, {
        accountActive: activeNow(step.userId),
      });
      if (prompt.name === 'refused') throw new PasskeyRefused('This account is disabled.');
      return signedIn(req, res, { userId: step.userId, amr: [step.method], remember: false, returnTo: step.returnTo, via: 'passkey' });
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
    async confirmBeforeAdding(req: Request, res: Response, ask: { userId: string; returnTo: string }): Promise<string | null> {
      const { session } = req;
      if (freshlyVerified(session)) return null;
      const factors = await factorsService.secondFactors(ask.userId);
      if (!factors) {
        const recent = session.authTime !== undefined && clock.now() - session.authTime < FACTOR_RULES.freshSignInMs;
        return recent ? null : signInLocation(ask.returnTo, { again: true });
      }
      const amr = session.amr ?? ['pwd'];
      const step = { kind: 'step-up' as const, userId: ask.userId, amr, remember: false, returnTo: ask.returnTo, factors };
      await open(req, res, { step: { ...step, via: 'second factor', at: clock.now() } });
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
      const { prompt, kinds } = await stepUpOwed(req.session, ask.userId, 'if-any');
      if (prompt.name === 'step-up') return holdStepUp(req, res, ask, kinds!);
      const location = ask.action ? await carryOut(req, res, ask.action, ask.userId) : ask.returnTo;
      await saveSession(req);
      res.redirect(req.method === 'GET' ? 302 : 303, location);
    },

    async requireFreshSecondFactor(req: Request, res: Response, ask: { userId: string; returnTo: string }) {
      const { prompt, kinds } = await stepUpOwed(req.session, ask.userId, 'required');
      if (prompt.name === 'done') return 'go-on' as const;
      if (prompt.name === 'refused') return 'no-second-factor' as const;
      await holdStepUp(req, res, ask, kinds!);
      return 'asked' as const;
    },

    /** The step waiting for a second factor in this browser, while it is fresh. */
    async pending(req: Request): Promise<PendingStep | null> {
      const pending = (await current(req))?.step;
      if (!pending) return null;
      // A step-up belongs to the session's own person; anything else is stale.
      if (pending.kind === 'step-up' && pending.userId !== req.session?.userId) return null;
      return { ...pending, interaction: heldBy(req).id };
    },

    useOf,

    giveBack: (pending: PendingStep): Promise<void> => giveBackMarks([useOf(pending)]),

    /**
     * The second factor was given: the pending step is used up, and the person is signed in (a new
     * session) or, for a step-up, the session is renewed under a new id with the stronger methods and
     * the action is carried out. Returns where the browser goes next.
     */
    async secondFactor(
      req: Request,
      res: Response,
      pending: PendingStep,
      factor: SecondFactor,
      via: string,
      { used = false, active }: { used?: boolean; active?: boolean } = {},
    ): Promise<string> {
      // The last factor of a sign-in: the account must still be active (the policy; the caller may
      // have read it with the factor). A disabled one goes back to the sign-in page, signed in nowhere.
      if (pending.kind === 'sign-in') {
        const ask = { prompt: [], consent: false, signingIn: 'last-factor' as const };
        const known = active === undefined ? activeNow(pending.userId) : () => Promise.resolve(active);
        if ((await decide(ask, null, { accountActive: known })).name === 'refused') return '/login';
      }
      // Used once (its mark, written here unless the factor's check wrote it with its budget hits): a
      // request that arrived with it at the same moment and lost goes nowhere.
      if (!used && !(await useOnce([useOf(pending)]))[0]) return this.nothingPending(req);
      forget(req, res);
      // The password's hits, unless the factor's check took them back with its own (pass `held: undefined`).
      if (pending.held?.length) await releaseHits(pending.held);
      const amr = factorsService.strengthened(pending.amr, factor);
      if (pending.kind === 'sign-in') return signedIn(req, res, { ...pending, amr, via: `${pending.via} and ${via}` });
      // A step-up: the same person, a new session id (a copy of the weaker session's id gains nothing).
      await renew(req, { amr, authTime: clock.now() });
      await activity.record(pending.userId, 'verified-again', origin(req, via));
      const location = pending.action ? await carryOut(req, res, pending.action, pending.userId) : pending.returnTo;
      await saveSession(req);
      return location;
    },

    /** A wrong second factor: a failed sign-in in the account's activity. */
    async secondFactorFailed(req: Request, pending: PendingStep): Promise<void> {
      await activity.record(pending.userId, 'sign-in-failed', origin(req, 'second factor'));
    },

    async takeNewRecoveryCodes(req: Request, res: Response): Promise<string[] | null> {
      const made = await current(req);
      if (!made?.codes || made.owner !== req.session?.userId) return null;
      return (await close(req, res)) ? made.codes : null;
    },

    /** Keeps a provider account waiting for its owner's password: the browser's interaction. */
    holdLink: (req: Request, res: Response, link: PendingLink): Promise<void> => open(req, res, { link }),

    /** A provider account waiting in this browser for its owner, while the interaction is fresh. */
    async pendingLink(req: Request): Promise<PendingLink | null> {
      return (await current(req))?.link ?? null;
    },

    /** Ends the browser's interaction (a link used or cancelled): true for the one request that ended it. */
    endInteraction: close,

    /** Where a step ends when no sign-in waits any more (expired, used, or never started). */
    nothingPending: (req: Request): string => (req.session?.userId ? '/account' : '/login'),

    /** The return path a request names, kept local (anything else is /home). */
    returnTo: (value: unknown): string => safeReturnTo(value),

    /** For requests that count against the sign-in budget: the client address. */
    address: clientAddress,
  };
}

const MAX_DEVICE_LENGTH = 200;

/**
 * Consent pages' requests, each an interaction record bound to the signed-in session that showed it
 * (its person and `sid`), named by the id its form carries, used once. With rate limits on, a person
 * opens at most `perPerson` pages a window (each a budget hit): what a signed-in person can make here
 * is bounded.
 */
export function createDecisionHold(clock: Clock, rateLimits: boolean): DecisionHold {
  const sweep = throttled(60_000, interactions.removeExpired);
  const owner = (req: Request) => ({ userId: req.session?.userId, sid: req.session?.oidcSid });
  const shape = new RegExp(DECISION_ID.pattern);
  return {
    async keep(req: Request, parameters: Record<string, string>, limits: DecisionLimits): Promise<string> {
      const { userId, sid } = owner(req);
      if (!userId || !sid) throw new Error('a consent page is kept only for a signed-in session');
      if (rateLimits) await reserve([{ rule: limitRule('consent-pages:person', limits.perPerson), key: userId }]);
      const id = randomToken(DECISION_ID.bytes);
      await interactions.insert(id, { consent: { parameters, userId, sid } }, new Date(clock.now() + limits.lifetimeMs));
      return id;
    },

    async take(req: Request, id: unknown): Promise<Record<string, string> | null> {
      if (typeof id !== 'string' || !shape.test(id)) return null;
      sweep(new Date(clock.now()));
      const kept = await interactions.find(id);
      const { userId, sid } = owner(req);
      if (!kept?.consent || kept.expiresAt.getTime() <= clock.now()) return null;
      if (kept.consent.userId !== userId || kept.consent.sid !== sid) return null;
      return (await interactions.remove(id)) ? kept.consent.parameters : null;
    },
  };
}
