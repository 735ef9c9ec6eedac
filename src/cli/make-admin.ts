// `npm run make-admin -- <email>`: adds the admin flag (8) to a user's permissionFlags, for the first
// admin of USERS_API_AUTH=jwt (later ones can be made by an admin through PATCH /users/:userId).
import { createLogger } from '../common/logger';
import { exitWithHelpIfAsked } from './help';
import { loadConfigFromProcess } from '../config';
import { openDatabase } from '../db/open';
import * as usersService from '../users/users.service';

const USAGE = `usage: npm run make-admin -- <email>

  adds the admin flag (${usersService.ADMIN_FLAG}) to the permissionFlags of the user with this email`;

async function main(): Promise<void> {
  exitWithHelpIfAsked(USAGE);
  const email = process.argv[2];
  if (!email || email.startsWith('-') || process.argv.length > 3) throw new Error(USAGE);
  const config = loadConfigFromProcess();
  const database = await openDatabase(config, createLogger('warn'));
  try {
    if (!(await usersService.grantAdmin(email))) throw new Error(`no user has the email ${email}`);
    process.stdout.write(`${email} is now an admin (permissionFlags include ${usersService.ADMIN_FLAG})\n`);
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
