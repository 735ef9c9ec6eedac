// An account's second factors (docs/security.md, Second factors): an authenticator app (TOTP),
// passkeys and recovery codes. Which ones a person has decides whether signing in takes a second
// step; what was given decides the session's amr, and so the acr of its ID tokens.
import { acrOf, MULTI_FACTOR_ACR } from '../oauth/protocol';
import { FACTOR_RULES } from './factors.rules';
import * as passkeysDao from './passkeys.dao';
import * as recoveryCodes from './recovery-codes.service';
import * as totpDao from './totp.dao';

/** The person has a factor to give after the password: an app turned on, or a passkey. */
export async function hasSecondFactor(userId: string): Promise<boolean> {
  const [totp, passkeys] = await Promise.all([totpDao.find(userId), passkeysDao.countFor(userId)]);
  return Boolean(totp?.confirmedAt) || passkeys > 0;
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
