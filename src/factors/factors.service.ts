// An account's second factors (docs/security.md, Second factors): an authenticator app (TOTP),
// passkeys and recovery codes. Which ones a person has decides whether signing in takes a second
// step; what was given decides the session's amr, and so the acr of its ID tokens.
import { acrOf, MULTI_FACTOR_ACR } from '../oauth/protocol';
import { FACTOR_RULES } from './factors.rules';
import type { ActivityLog } from '../account/activity.service';
import type { StepUpActions } from '../sign-in/journey.types';
import type { Passkeys } from './passkeys.service';
import type { Totp } from './totp.service';
import * as passkeysDao from './passkeys.dao';
import * as recoveryCodesDao from './recovery-codes.dao';
import * as recoveryCodes from './recovery-codes.service';
import { changeFactors, hasSecondFactor } from './second-factors.service';
import * as totpDao from './totp.dao';

export { FACTOR_RULES } from './factors.rules';
export { changeFactors, hasSecondFactor, secondFactors, type FactorKinds } from './second-factors.service';

/** Since when a factor counts as recently added (FACTOR_RULES.recentFactorDays). */
export const recentSince = (now: Date): Date => new Date(now.getTime() - FACTOR_RULES.recentFactorDays * 24 * 3600_000);

/**
 * Removes the factors added at or after `since` (a reset that chose to, a reset of an account whose
 * address was not verified, an operator's reset-factors); the recovery codes go too when none is left.
 * What was removed, in words.
 */
export async function removeFactorsSince(userId: string, since: Date): Promise<string[]> {
  const [app, keys] = await changeFactors(userId, () =>
    Promise.all([totpDao.removeConfirmedSince(userId, since), passkeysDao.removeCreatedSince(userId, since)]),
  );
  if (!(await hasSecondFactor(userId))) await recoveryCodes.removeAll(userId);
  return [...(app ? ['authenticator app'] : []), ...(keys > 0 ? [keys === 1 ? '1 passkey' : `${keys} passkeys`] : [])];
}

/** What the account page shows. */
export async function summary(userId: string) {
  const [totp, passkeys, recoveryLeft] = await Promise.all([
    totpDao.find(userId),
    passkeysDao.listFor(userId),
    recoveryCodes.remaining(userId),
  ]);
  return {
    totp: Boolean(totp?.confirmedAt),
    passkeys,
    recoveryLeft,
    recoveryMade: FACTOR_RULES.recoveryCodes.count,
    passkeyNameMax: FACTOR_RULES.maxPasskeyNameLength,
  };
}

/** Two factors were given (or a passkey, which checks the person itself). */
export const isMultiFactor = (amr: readonly string[] | undefined): boolean => acrOf(amr) === MULTI_FACTOR_ACR;

/** The methods after a second factor: those already given, the factor's own, and `mfa` when two kinds are there. */
export function strengthened(amr: readonly string[], factor: 'otp' | 'hwk' | 'swk'): string[] {
  const methods = new Set([...amr.filter((method) => method !== 'mfa'), factor]);
  if (methods.size > 1) methods.add('mfa');
  return [...methods];
}

/**
 * What a step-up may be for, carried out by the sign-in journey once the second factor is given:
 * turning off the app, removing a passkey, new recovery codes (kept in the session for the one page
 * that shows them). Each says where the browser goes next.
 */
/** Tells the owner a factor was added or removed (account.service.ts `factorChanged`: a mail). */
export type FactorNotice = (userId: string, change: { added: boolean; what: string; from: string }) => Promise<void>;

export function createFactorActions(deps: { totp: Totp; passkeys: Passkeys; activity: ActivityLog; notify: FactorNotice }): StepUpActions {
  const { totp, passkeys, activity, notify } = deps;
  const removed = async (userId: string, what: string, origin: { address: string; detail: string }) => {
    await activity.record(userId, 'factor-removed', { ...origin, detail: `${what}, ${origin.detail}` });
    await notify(userId, { added: false, what, from: origin.address });
  };
  /** Without a second factor the recovery codes go too. */
  const tidy = async (userId: string) => {
    if (!(await hasSecondFactor(userId))) await recoveryCodes.removeAll(userId);
  };
  return async (action, { userId, origin }) => {
    switch (action.name) {
      case 'remove-totp':
        if (await changeFactors(userId, () => totp.remove(userId))) await removed(userId, 'authenticator app', origin);
        await tidy(userId);
        return { location: '/account?done=totp-removed' };
      case 'remove-passkey':
        if (await changeFactors(userId, () => passkeys.remove(userId, action.id))) await removed(userId, 'passkey', origin);
        await tidy(userId);
        return { location: '/account?done=passkey-removed' };
      case 'new-recovery-codes': {
        if (!(await hasSecondFactor(userId))) return { location: '/account' };
        const newRecoveryCodes = await recoveryCodes.regenerate(userId);
        await activity.record(userId, 'recovery-codes-made', { ...origin, detail: `recovery codes, ${origin.detail}` });
        return { location: '/account/recovery-codes/new', newRecoveryCodes };
      }
    }
  };
}

/** See passkeys.dao.ts and recovery-codes.dao.ts: lists of the records stored before lists existed (src/migrations.ts). */
export async function listExistingFactors(): Promise<number> {
  return (await passkeysDao.listExisting()) + (await recoveryCodesDao.listExisting());
}
