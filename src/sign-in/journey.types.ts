// The sign-in journey's vocabulary (journey.service.ts): what a pending step holds, in the session,
// and what a step-up's actions are. Types only, so the session and the factors can name them
// without importing the journey.
import type { SessionData } from 'express-session';
import type { FactorKinds } from '../factors/second-factors.service';

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
}

/** Carries out a step-up's action for the person; returns where the browser goes next. */
export type StepUpActions = (
  action: StepUpAction,
  person: { userId: string; session: Partial<SessionData>; origin: { address: string; detail: string } },
) => Promise<string>;
