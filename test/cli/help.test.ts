// Every command answers --help with its usage and exit code 0, without touching a database.
import { runCommand, type Command } from '../helpers/commands';

it.each<Command>(['seed', 'keys', 'make-admin', 'oauth-client', 'unlock', 'users'])(
  'npm run %s -- --help prints the usage and exits 0',
  async (command) => {
    // An unreachable database: --help must not need one.
    const { stdout } = await runCommand(command, ['--help'], { MONGODB_URI: 'mongodb://127.0.0.1:1/none', LOG_LEVEL: 'silent' });
    expect(stdout).toMatch(/^usage: npm run /);
  },
);
