// Which second factors a person has, and changing them with the account's hint kept true: what the
// factors' own services (the app, passkeys) and the sign-in journey read and write.
import * as usersService from '../users/users.service';
import * as passkeysDao from './passkeys.dao';
import * as totpDao from './totp.dao';

/** The kinds of second factor a person can give: an app turned on, passkeys. */
export interface FactorKinds {
  totp: boolean;
  passkeys: boolean;
}

/** The factors the person has to give after the password, or null when they have none. */
export async function secondFactors(userId: string): Promise<FactorKinds | null> {
  const [totp, passkeys] = await Promise.all([totpDao.find(userId), passkeysDao.countFor(userId)]);
  const kinds = { totp: Boolean(totp?.confirmedAt), passkeys: passkeys > 0 };
  return kinds.totp || kinds.passkeys ? kinds : null;
}

/** The person has a factor to give after the password: an app turned on, or a passkey. */
export const hasSecondFactor = async (userId: string): Promise<boolean> => (await secondFactors(userId)) !== null;

/**
 * Adds or removes a factor with the account's hint kept true (users.model.ts `secondFactor`) until
 * the change is done, and false afterwards only when no factor is left.
 */
export const changeFactors = <T>(userId: string, change: () => Promise<T>): Promise<T> =>
  usersService.changeSecondFactors(userId, change, () => secondFactors(userId));
