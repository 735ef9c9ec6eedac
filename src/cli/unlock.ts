// `npm run unlock -- <email>`: lifts the lock that failed passwords put on an account (10 from one
// address, or 100 from anywhere, within 15 minutes), so its owner can sign in again at once.
import { forgetFailuresOf } from '../sign-in/sign-in-limits';
import { runEmailCommand } from './email-command';

const USAGE = `usage: npm run unlock -- <email>

  forgets the failed sign-ins of this account, from every address, so its owner can sign in at once`;

runEmailCommand(USAGE, async (email, config) => {
  const forgotten = await forgetFailuresOf(config, email);
  return forgotten > 0 ? `${email} is unlocked (${forgotten} failed sign-ins forgotten)` : `${email} had no failed sign-ins to forget`;
});
