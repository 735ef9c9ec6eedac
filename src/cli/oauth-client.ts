// `npm run oauth:client -- <command>`: manages OAuth clients from a shell on the server, whoever owns
// them, with the same rules as the HTTP API. Text for people, --json for scripts. The older form, the
// options of `create` without a command, still registers a client and prints it as JSON.
import { parseArgs } from 'node:util';
import { createLogger } from '../common/logger';
import { problemsWith } from '../common/validation';
import { loadConfigFromProcess } from '../config';
import { openMigratedDatabase } from '../migrations';
import * as clientsService from '../oauth/clients/clients.service';
import { registerClient } from '../oauth/clients/clients.validation';
import * as usersService from '../users/users.service';
import { clientRemoved } from '../wiring';

const HELP = `usage: npm run oauth:client -- <command> [options]

commands:
  create --name N --website W --redirect-uri U [--grants g1,g2] [--owner email]
                              register a client; its secret is printed this once
  list [--owner email]        every client, or one user's
  show <client_id>            one client's registration
  update <client_id> [--name N] [--website W] [--redirect-uri U]... [--grants g1,g2] [--operator yes|no]
                              change a registration; repeated --redirect-uri replace them all;
                              --operator yes lets its client_credentials tokens carry the admin scope
  delete <client_id>          delete a client and revoke every token, code and consent issued to it
  rotate-secret <client_id>   print a new secret; running servers refuse the old one within a second

options:
  --json                      print JSON instead of text
  -h, --help                  show this help

grants: authorization_code, implicit, refresh_token, password, client_credentials,
        urn:ietf:params:oauth:grant-type:device_code (default: the first three)
`;

const COMMANDS = ['create', 'list', 'show', 'update', 'delete', 'rotate-secret'];
const SECRET_NOTICE = 'Keep client_secret now: it is stored only as a hash and cannot be shown again.\n';

/** Arguments the command cannot make sense of: exit code 2 and a pointer to --help. */
class UsageError extends Error {}

type Values = ReturnType<typeof parse>['values'];

const OPTIONS = {
  name: { type: 'string' },
  website: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  grants: { type: 'string' },
  owner: { type: 'string' },
  operator: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A client_id: 22 base64url characters, which may begin with "-" or "--". */
const CLIENT_ID_SHAPE = /^[A-Za-z0-9_-]{20,}$/;

/**
 * Puts the options first (a value joined to its option with "=", so it may begin with "-") and every
 * other argument after "--": a client_id that begins with "-" is then no option to parseArgs.
 */
function withPositionalsLast(args: string[]): string[] {
  const options: string[] = [];
  const positionals: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    const name = arg.startsWith('--') ? arg.slice(2).split('=')[0] : null;
    const known = name !== null && name in OPTIONS;
    if (arg === '--') {
      positionals.push(...args.slice(index + 1));
      break;
    } else if (known && OPTIONS[name as keyof typeof OPTIONS].type === 'string' && !arg.includes('=') && index + 1 < args.length) {
      options.push(`${arg}=${args[++index]}`);
    } else if (known || arg === '-h' || (arg.startsWith('--') && !CLIENT_ID_SHAPE.test(arg))) {
      // Unknown options stay options, so parseArgs names them.
      options.push(arg);
    } else {
      positionals.push(arg);
    }
  }
  return [...options, '--', ...positionals];
}

function parse(args: string[]) {
  return parseArgs({ args: withPositionalsLast(args), allowPositionals: true, options: OPTIONS });
}

/** Runs the HTTP API's registration rules over a registration; returns it as they sanitised it. */
async function validated(input: Record<string, unknown>): Promise<clientsService.ClientRegistration> {
  const body = { ...input };
  const problems = await problemsWith(registerClient, body);
  if (problems.length) throw new Error(problems.join('; '));
  return body as unknown as clientsService.ClientRegistration;
}

const grantsOf = (values: Values) => (values.grants ? { grants: values.grants.split(',').map((grant) => grant.trim()) } : {});

async function ownerIdOf(email: string | undefined): Promise<string | undefined> {
  if (email === undefined) return undefined;
  const owner = await usersService.findByEmail(email);
  if (!owner) throw new Error(`no user has the email ${email}`);
  return owner._id;
}

function textOf(client: Partial<clientsService.ClientDetails> & { client_secret?: string }): string {
  const rows: [string, string | undefined][] = [
    ['client_id', client.client_id],
    ['client_secret', client.client_secret],
    ['name', client.name],
    ['website', client.website],
    ['redirect_uris', client.redirect_uris?.join('\n               ') ?? client.redirect_uri],
    ['grants', client.grants?.join(', ')],
    ['auth method', client.token_endpoint_auth_method],
    [
      'registered by',
      client.dynamically_registered === undefined
        ? undefined
        : client.dynamically_registered
          ? 'POST /oauth/register'
          : 'POST /oauth/clients or this command',
    ],
    ['owner', client.owner_id === undefined ? undefined : (client.owner_id ?? '(none: managed from this command)')],
    ['created', client.created_at],
  ];
  return rows
    .filter(([, value]) => value !== undefined)
    .map(([label, value]) => `${label.padEnd(15)}${value}\n`)
    .join('');
}

function tableOf(clients: clientsService.ClientDetails[]): string {
  if (!clients.length) return 'no clients\n';
  const rows = [
    ['CLIENT_ID', 'NAME', 'GRANTS', 'OWNER'],
    ...clients.map((c) => [c.client_id, c.name, c.grants.join(','), c.owner_id ?? '-']),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ');
  return rows.map((row) => `${line(row).trimEnd()}\n`).join('');
}

/** The one client_id a command takes. */
function clientIdOf(positionals: string[], command: string): string {
  if (positionals.length !== 2) throw new UsageError(`${command} takes one client_id`);
  return positionals[1];
}

function found<T>(value: T | null, clientId: string): T {
  if (value === null) throw new Error(`no client has the id ${clientId}`);
  return value;
}

async function run(command: string, positionals: string[], values: Values, print: (value: unknown, text: string) => void) {
  switch (command) {
    case 'create': {
      if (positionals.length > 1) throw new UsageError('create takes no client_id');
      const uris = values['redirect-uri'] ?? [];
      if (!values.name || !values.website || uris.length !== 1)
        throw new UsageError('create needs --name, --website and one --redirect-uri');
      const registration = await validated({ name: values.name, website: values.website, redirect_uri: uris[0], ...grantsOf(values) });
      const client = await clientsService.register(await ownerIdOf(values.owner), registration);
      print(client, textOf(client));
      process.stderr.write(SECRET_NOTICE);
      return;
    }
    case 'list': {
      if (positionals.length > 1) throw new UsageError('list takes no client_id');
      const clients = await clientsService.listAll(await ownerIdOf(values.owner));
      print(clients, tableOf(clients));
      return;
    }
    case 'show': {
      const clientId = clientIdOf(positionals, command);
      const client = found(await clientsService.details(clientId), clientId);
      print(client, textOf(client));
      return;
    }
    case 'update': {
      const clientId = clientIdOf(positionals, command);
      const current = found(await clientsService.details(clientId), clientId);
      const uris = values['redirect-uri'];
      if (values.operator !== undefined && values.operator !== 'yes' && values.operator !== 'no') {
        throw new UsageError('--operator takes yes or no');
      }
      if (values.name === undefined && values.website === undefined && !uris && !values.grants && values.operator === undefined) {
        throw new UsageError('update needs at least one of --name, --website, --redirect-uri, --grants, --operator');
      }
      // Each redirect URI, and the fields beside it, pass the rules a new registration would.
      const checked = await Promise.all(
        (uris ?? [current.redirect_uri]).map((uri) =>
          validated({
            name: values.name ?? current.name,
            website: values.website ?? current.website,
            redirect_uri: uri,
            ...grantsOf(values),
          }),
        ),
      );
      const client = await clientsService.update(clientId, {
        ...(values.name !== undefined && { name: checked[0].name }),
        ...(values.website !== undefined && { website: checked[0].website }),
        ...(uris && { redirect_uris: checked.map((registration) => registration.redirect_uri) }),
        ...(values.grants && { grants: checked[0].grants }),
        ...(values.operator !== undefined && { operator_access: values.operator === 'yes' }),
      });
      print(found(client, clientId), textOf(found(client, clientId)));
      return;
    }
    case 'delete': {
      const clientId = clientIdOf(positionals, command);
      found((await clientsService.removeClient(clientId, clientRemoved)) || null, clientId);
      print({ client_id: clientId, deleted: true }, `deleted ${clientId}, and revoked every token, code and consent issued to it\n`);
      return;
    }
    case 'rotate-secret': {
      const clientId = clientIdOf(positionals, command);
      const secret = found(await clientsService.rotateSecret(clientId), clientId);
      print({ client_id: clientId, client_secret: secret }, textOf({ client_id: clientId, client_secret: secret }));
      process.stderr.write(SECRET_NOTICE);
      return;
    }
  }
}

async function main(args: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  // The older form: create's options without a command, printed as JSON.
  const legacy = positionals.length === 0 && values.name !== undefined;
  const command = legacy ? 'create' : positionals[0];
  if (command === undefined) throw new UsageError('no command given');
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${command}"`);
  const json = legacy || values.json === true;
  const print = (value: unknown, text: string) => process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text);

  const database = await openMigratedDatabase(loadConfigFromProcess(), createLogger('warn'));
  try {
    await run(command, legacy ? ['create'] : positionals, values, print);
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(err instanceof UsageError ? `${message}\nrun "npm run oauth:client -- --help" for usage\n` : `${message}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
