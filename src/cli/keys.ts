// `npm run keys -- rotate|list`: the signing keys in the configured database. `rotate` makes a new key
// current for each algorithm (RS256, ES256); running servers sign with them within
// OIDC_KEYS_REFRESH_SECONDS and keep publishing the old ones until the ID tokens they signed have expired.
import { createLogger } from '../common/logger';
import { exitWithHelpIfAsked } from './help';
import { loadConfigFromProcess } from '../config';
import { openMigratedDatabase } from '../migrations';
import { keyRingOptions, listPublished, rotate } from '../oauth/oidc/signing-keys.service';

const USAGE = `usage: npm run keys -- rotate | list

  rotate   make new signing keys current (RS256 and ES256); servers sign with them within OIDC_KEYS_REFRESH_SECONDS
  list     the published keys, current and retired`;

async function main(): Promise<void> {
  exitWithHelpIfAsked(USAGE);
  const command = process.argv[2];
  if (process.argv.length !== 3 || (command !== 'rotate' && command !== 'list')) throw new Error(USAGE);
  const config = loadConfigFromProcess();
  if (config.generatedSecrets.includes('SIGNING_KEYS_SECRET')) {
    throw new Error("Set SIGNING_KEYS_SECRET to the servers' value: keys are encrypted with it.");
  }
  const database = await openMigratedDatabase(config, createLogger('warn'));
  try {
    if (command === 'rotate') {
      const kids = await rotate(keyRingOptions(config.oauth));
      process.stdout.write(
        `new signing keys ${kids.join(', ')} are current; servers pick them up within ${config.oauth.signingKeysRefresh} s\n`,
      );
      return;
    }
    for (const key of await listPublished()) {
      const state = key.retiredAt ? `retired, published until ${key.publishUntil?.toISOString()}` : 'current';
      process.stdout.write(`${key._id}  ${key.alg}  created ${key.createdAt.toISOString()}  ${state}\n`);
    }
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
