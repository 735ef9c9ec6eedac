// `npm run unlock -- <email>`: lifts the lock that failed passwords put on an account (10 from one
// address, or 100 from anywhere, within 15 minutes), so its owner can sign in again at once.
import { createLogger } from '../common/logger';
import { loadConfigFromProcess } from '../config';
import { openDatabase } from '../db/open';
import { forgetFailuresOf } from '../sign-in/sign-in-limits';
import { exitWithHelpIfAsked } from './help';

const USAGE = `usage: npm run unlock -- <email>

  forgets the failed sign-ins of this account, from every address, so its owner can sign in at once`;

async function main(): Promise<void> {
  exitWithHelpIfAsked(USAGE);
  const email = process.argv[2];
  if (!email || email.startsWith('-') || process.argv.length > 3) throw new Error(USAGE);
  const config = loadConfigFromProcess();
  const database = await openDatabase(config, createLogger('warn'));
  try {
    const forgotten = await forgetFailuresOf(config, email);
    process.stdout.write(
      forgotten > 0 ? `${email} is unlocked (${forgotten} failed sign-ins forgotten)\n` : `${email} had no failed sign-ins to forget\n`,
    );
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
