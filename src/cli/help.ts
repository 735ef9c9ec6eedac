// `--help` (or `-h`) for the commands: the usage on standard output and exit code 0, before anything
// else runs (no database is opened, no configuration is read).
export function exitWithHelpIfAsked(usage: string, argv: readonly string[] = process.argv.slice(2)): void {
  if (!argv.some((arg) => arg === '--help' || arg === '-h')) return;
  process.stdout.write(`${usage.trimEnd()}\n`);
  process.exit(0);
}
