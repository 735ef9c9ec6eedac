// The sign-in journey's vocabulary (interaction.ts): what a pending step holds, in its interaction, what
// a step-up's actions are, and what the interaction offers the controllers of every way in. Types
// only, so the session, the factors and the controllers can name them without importing it.
import type { Request, Response } from 'express';
import type { SingleUse } from '../common/rate-limit';
import type { FactorKinds } from '../factors/second-factors.service';
import type { PendingLink } from '../upstream/upstream.types';

/** How a first step was given (RFC 8176): a password, a federated provider, or a passkey alone. */
export type FirstFactor = 'pwd' | 'fed';
export type SecondFactor = 'otp' | 'hwk' | 'swk';

/** What a step-up was asked for, carried out once the factor is given (factors/factor-actions.ts). */
export type StepUpAction = { name: 'remove-totp' } | { name: 'remove-passkey'; id: string } | { name: 'new-recovery-codes' };

/** A second factor is owed: by someone signing in (nobody is signed in yet) or by the signed-in person. */
export interface PendingStep {
  kind: 'sign-in' | 'step-up';
  userId: string;
  /** The methods already proven (`pwd`, `fed`, or the stepped-up session's). */
  amr: string[];
  remember: boolean;
  /** A local path: where to go once the factor is given. */
  returnTo: string;
  action?: StepUpAction;
  /** The factors the person can give (read when the step began: the page needs no other look). */
  factors: FactorKinds;
  /** How the first step was given, for the activity entry ("password", "GitHub", "password reset"). */
  via: string;
  /** When the step began (ms). */
  at: number;
  /** The password's budget hits, held until the second factor is right (sign-in.service.ts VerifiedPerson `held`). */
  held?: readonly string[];
  /** The interaction holding the step (its id), set when it is read: what a factor's check uses up. */
  interaction?: string;
}

/** What a step-up's action did: where the browser goes next, and recovery codes made (shown once there). */
export interface ActionDone {
  location: string;
  newRecoveryCodes?: string[];
}

/** Carries out a step-up's action for the person. */
export type StepUpActions = (
  action: StepUpAction,
  person: { userId: string; origin: { address: string; detail: string } },
) => Promise<ActionDone>;

/** A first step that was right (a password, a provider, a reset link, a new account). */
export interface FirstStep {
  userId: string;
  method: FirstFactor;
  remember: boolean;
  returnTo: string;
  via: string;
  /** The account's hint, read with the password: whether it has a second factor, and which. */
  secondFactor?: boolean;
  factorKinds?: FactorKinds;
  /** The methods proven when more than `method` (a provider's trusted amr, a password given to link one). */
  amr?: string[];
  /** The password's budget hits, held while a second factor may be owed. */
  held?: readonly string[];
  /** Set when the caller found the account active just now (the password check, a reset link): not read again. */
  active?: true;
}

/** The sign-in interaction, as the controllers of every way in and every step-up use it (interaction.ts). */
export interface Journey {
  /** Signed in, or on to the second step when the account has one. Answers the browser. */
  firstFactor(req: Request, res: Response, step: FirstStep): Promise<void>;
  /** After a step that returned where to go: on there, or the application answered now. */
  go(req: Request, res: Response, location: string): Promise<void>;
  /** A passkey alone (it checked the person itself): signed in; where to go. */
  passkey(req: Request, res: Response, step: { userId: string; method: 'hwk' | 'swk'; returnTo: string }): Promise<string>;
  /** The password changed (every session ended): this browser goes on as the same person, as strongly as before. */
  renewed(req: Request, userId: string): Promise<void>;
  /** Before a factor is added: null when the session may go on, else where the browser goes first. */
  confirmBeforeAdding(req: Request, res: Response, ask: { userId: string; returnTo: string }): Promise<string | null>;
  /** A factor was just added and proven: the session counts it from now on, under a new id. */
  factorAdded(req: Request, factor: SecondFactor): Promise<void>;
  /** A signed-in person asked for more than their session gives: the second step, then the action. Answers the browser. */
  stepUp(req: Request, res: Response, ask: { userId: string; returnTo: string; action?: StepUpAction }): Promise<void>;
  /**
   * For what needs a fresh second factor however strong the session (the operator's console): go on;
   * refused when the person has none set up; or the second step asked (the browser sent there).
   */
  requireFreshSecondFactor(
    req: Request,
    res: Response,
    ask: { userId: string; returnTo: string },
  ): Promise<'go-on' | 'no-second-factor' | 'asked'>;
  /** The step waiting for a second factor in this browser, while it is fresh. */
  pending(req: Request): Promise<PendingStep | null>;
  /**
   * The second factor was given: the pending step used up, then signed in or the step-up's action
   * carried out; where the browser goes next (nowhere new when another request used the step first).
   */
  secondFactor(
    req: Request,
    res: Response,
    pending: PendingStep,
    factor: SecondFactor,
    via: string,
    /** `used`: the factor's check wrote the step's mark; `active`: the account as the caller just read it. */
    options?: { used?: boolean; active?: boolean },
  ): Promise<string>;
  /** The single-use mark that uses the pending step up: a factor's check may write it with its budget hits (`used`). */
  useOf(pending: PendingStep): SingleUse;
  /** The pending step's mark taken back: the check it went with failed, and the step stays pending. */
  giveBack(pending: PendingStep): Promise<void>;
  /** A wrong second factor: a failed sign-in in the account's activity. */
  secondFactorFailed(req: Request, pending: PendingStep): Promise<void>;
  /** Where a step ends when no sign-in waits any more (expired, used, or never started). */
  nothingPending(req: Request): string;
  /** Recovery codes a step-up's action made, taken to be shown this once; null when there are none. */
  takeNewRecoveryCodes(req: Request, res: Response): Promise<string[] | null>;
  /** Keeps a provider account waiting for its owner's password, as the browser's interaction. */
  holdLink(req: Request, res: Response, link: PendingLink): Promise<void>;
  /** A provider account waiting in this browser for its owner, while fresh. */
  pendingLink(req: Request): Promise<PendingLink | null>;
  /** Ends the browser's interaction (a link used or cancelled): true for the one request that ended it. */
  endInteraction(req: Request, res: Response): Promise<boolean>;
  /** The return path a request names, kept local (anything else is /home). */
  returnTo(value: unknown): string;
  /** For requests that count against the sign-in budget: the client address. */
  address(req: Request): string;
}

/** How many consent pages one person may open in a rate-limit window, and how long one waits for its decision. */
export interface DecisionLimits {
  perPerson: number;
  lifetimeMs: number;
}

/**
 * Requests kept for their page's decision (the consent page), out of the session: each an interaction
 * record for the signed-in session that showed it, named by the id its form carries (interaction.ts).
 */
export interface DecisionHold {
  /** Keeps the request, stored before the page goes out; the id the page's form carries. */
  keep(req: Request, parameters: Record<string, string>, limits: DecisionLimits): Promise<string>;
  /** The request a form names, used up; null when it is not this session's, is used or is too old. */
  take(req: Request, id: unknown): Promise<Record<string, string> | null>;
}

/** The id a consent page's form carries: 16 random bytes, base64url (its pattern is what OpenAPI states). */
export const DECISION_ID = { bytes: 16, pattern: '^[A-Za-z0-9_-]{22}$' } as const;
