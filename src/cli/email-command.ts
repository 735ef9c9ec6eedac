// The frame of a command that takes one email (`make-admin`, `unlock`): --help, the argument, the
// configuration and the database around the work, and one line on standard output.
import { createLogger } from '../common/logger';
import { loadConfigFromProcess, type Config } from '../config';
import { openMigratedDatabase } from '../migrations';
import { exitWithHelpIfAsked } from './help';

export function runEmailCommand(usage: string, work: (email: string, config: Config) => Promise<string>): void {
  const main = async () => {
    exitWithHelpIfAsked(usage);
    const email = process.argv[2];
    if (!email || email.startsWith('-') || process.argv.length > 3) throw new Error(usage);
    const config = loadConfigFromProcess();
    const database = await openMigratedDatabase(config, createLogger('warn'));
    try {
      process.stdout.write(`${await work(email, config)}\n`);
    } finally {
      await database.close();
    }
  };
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
