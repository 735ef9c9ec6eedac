// Lifting a sign-in lock, for `npm run unlock` and `npm run users -- unlock`: forgets the account's
// failed sign-ins from every address, and says how many.
import type { Config } from '../config';
import { forgetFailuresOf } from '../sign-in/sign-in-limits';

export async function unlockAccount(config: Config, email: string): Promise<string> {
  const forgotten = await forgetFailuresOf(config, email);
  return forgotten > 0 ? `${email} is unlocked (${forgotten} failed sign-ins forgotten)` : `${email} had no failed sign-ins to forget`;
}
