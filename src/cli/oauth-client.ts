// `npm run oauth:client -- --name N --website W --redirect-uri U [--grants g1,g2] [--owner email]`:
// registers an OAuth client with the same rules as POST /oauth/clients and prints it, secret
// included, once. Without --owner the client belongs to no user and is managed from here only.
import { parseArgs } from 'node:util';
import { validationResult } from 'express-validator';
import { createLogger } from '../common/logger';
import { loadConfigFromProcess } from '../config';
import { openDatabase } from '../db/open';
import * as clientsService from '../oauth/clients/clients.service';
import { registerClient } from '../oauth/clients/clients.validation';
import * as usersService from '../users/users.service';

const USAGE = 'usage: npm run oauth:client -- --name N --website W --redirect-uri U [--grants g1,g2] [--owner email]';

async function validated(input: Record<string, unknown>): Promise<clientsService.ClientRegistration> {
  const req = { body: input };
  for (const chain of registerClient) await chain.run(req);
  const errors = validationResult(req).array({ onlyFirstError: true });
  if (errors.length) throw new Error(errors.map((error) => String(error.msg)).join('; '));
  return input as unknown as clientsService.ClientRegistration;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      website: { type: 'string' },
      'redirect-uri': { type: 'string' },
      grants: { type: 'string' },
      owner: { type: 'string' },
    },
  });
  if (!values.name || !values.website || !values['redirect-uri']) throw new Error(USAGE);
  const registration = await validated({
    name: values.name,
    website: values.website,
    redirect_uri: values['redirect-uri'],
    ...(values.grants ? { grants: values.grants.split(',').map((grant) => grant.trim()) } : {}),
  });

  const config = loadConfigFromProcess();
  const database = await openDatabase(config, createLogger('warn'));
  try {
    let ownerId: string | undefined;
    if (values.owner) {
      const owner = await usersService.findCredentials(values.owner);
      if (!owner) throw new Error(`no user has the email ${values.owner}`);
      ownerId = owner._id;
    }
    const client = await clientsService.register(ownerId, registration);
    process.stdout.write(`${JSON.stringify(client, null, 2)}\n`);
    process.stderr.write('Keep client_secret now: it is stored only as a hash and cannot be shown again.\n');
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
