// `npm run unlock -- <email>`: lifts the lock that failed passwords put on an account (10 from one
// address, or 100 from anywhere, within 15 minutes), so its owner can sign in again at once.
import { runEmailCommand } from './email-command';
import { unlockAccount } from './unlock-account';

const USAGE = `usage: npm run unlock -- <email>

  forgets the failed sign-ins of this account, from every address, so its owner can sign in at once`;

runEmailCommand(USAGE, (email, config) => unlockAccount(config, email));
