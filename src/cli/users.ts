// `npm run users -- <command>`: looks after accounts from a shell on the server (docs/accounts.md,
// Operators): list and show them, lift a sign-in lock, mark an email verified, disable an account
// (it can sign in nowhere and everything issued to it ends) or enable it again, remove its second
// factors.
import { createStores } from '../stores';
import { createLogger } from '../common/logger';
import { loadConfigFromProcess } from '../config';
import { openMigratedDatabase } from '../migrations';
import * as usersService from '../users/users.service';
import * as factorsService from '../factors/factors.service';
import type { UserRecord } from '../users/users.types';
import { createLifecycle } from '../wiring';
import { exitWithHelpIfAsked } from './help';
import { unlockAccount } from './unlock-account';

const USAGE = `usage: npm run users -- <command> [<email>]

commands:
  list [<page>]      the accounts, ${usersService.MAX_PAGE_SIZE} a page (page 0 first): email, verified, disabled
  show <email>       one account
  unlock <email>     forget the account's failed sign-ins, so its owner can sign in at once
  verify <email>     mark the account's email verified
  disable <email>    the account can sign in nowhere; its sessions and tokens end now
  enable <email>     let a disabled account sign in again
  reset-factors <email>
                     remove the account's authenticator app, passkeys and recovery codes: its owner
                     signs in with the password alone and enrols again`;

const COMMANDS = ['list', 'show', 'unlock', 'verify', 'disable', 'enable', 'reset-factors'] as const;
type UsersCommand = (typeof COMMANDS)[number];

/** Back-channel logout tokens of a disabled account go out before the command exits (bounded). */
const FLUSH_MS = 15_000;

function describe(user: UserRecord): string {
  const state = [user.emailVerified ? 'verified' : 'unverified', user.disabled ? 'disabled' : 'active'];
  return `${user.email ?? '(no email)'}  uid ${user.uid}  ${state.join(', ')}  id ${user._id}`;
}

async function main(): Promise<void> {
  exitWithHelpIfAsked(USAGE);
  const [command, argument, ...rest] = process.argv.slice(2);
  if (!COMMANDS.includes(command as UsersCommand) || rest.length > 0) throw new Error(USAGE);
  if (command !== 'list' && (!argument || argument.startsWith('-'))) throw new Error(USAGE);
  if (command === 'list' && argument !== undefined && !/^\d{1,6}$/.test(argument)) throw new Error(USAGE);
  const config = loadConfigFromProcess();
  const logger = createLogger('warn');
  const database = await openMigratedDatabase(config, logger);
  try {
    process.stdout.write(`${await run(command as UsersCommand, argument, config, logger)}\n`);
  } finally {
    await database.close();
  }
}

async function run(
  command: UsersCommand,
  argument: string | undefined,
  config: ReturnType<typeof loadConfigFromProcess>,
  logger: ReturnType<typeof createLogger>,
): Promise<string> {
  if (command === 'list') {
    const users = await usersService.list(Number(argument ?? 0), usersService.MAX_PAGE_SIZE);
    return users.length === 0 ? 'no accounts on this page' : users.map(describe).join('\n');
  }
  const email = argument!;
  if (command === 'unlock') return unlockAccount(config, email);
  const user = await usersService.findByEmail(email);
  if (!user?.email) throw new Error(`no user has the email ${email}`);
  switch (command) {
    case 'show':
      return describe(user);
    case 'verify':
      await usersService.markEmailVerified(user._id, user.email);
      return `${user.email} is verified`;
    case 'enable':
      await usersService.setDisabled(user._id, false, async () => undefined);
      return `${user.email} is enabled: it can sign in again`;
    case 'reset-factors': {
      const removed = await factorsService.removeFactorsSince(user._id, new Date(0));
      return `${user.email}: ${removed.length > 0 ? `removed ${removed.join(' and ')}` : 'had no second factor'}; it signs in with its password alone`;
    }
    case 'disable': {
      const lifecycle = createLifecycle(config, logger, createStores().clients);
      await usersService.setDisabled(user._id, true, lifecycle.accessEnded);
      for (let waited = 0; lifecycle.backchannel.pending > 0 && waited < FLUSH_MS; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return `${user.email} is disabled: it cannot sign in, and its sessions and tokens have ended`;
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
