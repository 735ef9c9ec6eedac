// `npm run resources -- list|create|delete`: the APIs (RFC 8707 resources) clients may ask tokens
// for, in the configured database. Running servers see a change within a second.
import { parseArgs } from 'node:util';
import { createLogger } from '../common/logger';
import { exitWithHelpIfAsked } from './help';
import { loadConfigFromProcess } from '../config';
import { openMigratedDatabase } from '../migrations';
import { LIMITS, RESOURCE_FORMATS } from '../oauth/protocol';
import * as resourcesService from '../oauth/resources/resources.service';

const USAGE = `usage: npm run resources -- <command> [options]

  list [--json]                       the registered resources, and this server's own
  create --id <uri> --scopes a,b [--format ${RESOURCE_FORMATS.join('|')}] [--lifetime seconds] [--alg ES256|RS256] [--json]
                                      register an API: clients name it in \`resource\` and get tokens for it alone
                                      (JWT access tokens by default, ${LIMITS.jwtAccessTokenLifetimeSeconds} s)
  delete --id <uri>                   forget it; tokens issued for it live out their time`;

class UsageError extends Error {}

async function main(): Promise<void> {
  exitWithHelpIfAsked(USAGE);
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args: process.argv.slice(2),
        allowPositionals: true,
        options: {
          id: { type: 'string' },
          scopes: { type: 'string' },
          format: { type: 'string' },
          lifetime: { type: 'string' },
          alg: { type: 'string' },
          json: { type: 'boolean' },
        },
      });
    } catch (err) {
      throw new UsageError(err instanceof Error ? err.message : String(err));
    }
  })();
  const command = positionals[0];
  if (positionals.length !== 1 || !['list', 'create', 'delete'].includes(command))
    throw new UsageError('name one command: list, create or delete');
  if (command !== 'list' && values.id === undefined) throw new UsageError(`${command} needs --id <uri>`);
  if (command === 'create' && values.scopes === undefined) throw new UsageError('create needs --scopes a,b');
  const config = loadConfigFromProcess();
  const database = await openMigratedDatabase(config, createLogger('warn'));
  const print = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : text);
  try {
    if (command === 'list') {
      const own = resourcesService.ownResource(config);
      const registered = await resourcesService.page(LIMITS.resources);
      const views = [own, ...registered].map(resourcesService.resourceView);
      const line = (view: (typeof views)[number]) =>
        `${view.resource}  ${view.format}  ${view.access_token_lifetime} s  ${view.signing_alg}  ${view.scopes.join(' ')}\n`;
      print(
        { own: views[0], resources: views.slice(1) },
        `${line(views[0]).trimEnd()}  (this server's own APIs)\n${views.slice(1).map(line).join('')}`,
      );
      return;
    }
    if (command === 'create') {
      const lifetime = values.lifetime === undefined ? undefined : Number(values.lifetime);
      // The admin API's body, from the options: the same rules hold both.
      const created = await resourcesService.create(config, {
        resource: values.id,
        scopes: values
          .scopes!.split(',')
          .map((scope) => scope.trim())
          .filter(Boolean),
        format: values.format,
        access_token_lifetime: lifetime,
        signing_alg: values.alg,
      });
      print(resourcesService.resourceView(created), `registered ${created.id} (${created.format} access tokens)\n`);
      return;
    }
    if (!(await resourcesService.remove(values.id!))) throw new Error(`no resource ${values.id}`);
    print({ resource: values.id, deleted: true }, `deleted ${values.id}\n`);
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  if (err instanceof UsageError) process.stderr.write(`${USAGE}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
