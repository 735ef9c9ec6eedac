// npm run oauth:client as real processes against this file's database, checked through the HTTP API.
import mongoose from 'mongoose';
import request from 'supertest';
import { sha256 } from '../../src/common/crypto';
import { ClientModel } from '../../src/oauth/clients/clients.model';
import * as clientsService from '../../src/oauth/clients/clients.service';
import { testApp } from '../helpers/app';
import { runCommand } from '../helpers/commands';
import { testDatabaseUriWithName, useTestDatabase } from '../helpers/db';
import { createUser } from '../helpers/factories';
import { msUntilFalse } from '../helpers/polling';

useTestDatabase();
const app = testApp();

interface Run {
  stdout: string;
  stderr: string;
}

const run = (args: string[]): Promise<Run> =>
  runCommand('oauth-client', args, { MONGODB_URI: testDatabaseUriWithName(mongoose.connection.name), LOG_LEVEL: 'silent' });

const runJson = async <T>(args: string[]): Promise<T> => JSON.parse((await run([...args, '--json'])).stdout) as T;

const clientCredentials = (clientId: string, clientSecret: string) =>
  request(app).post('/oauth/token').type('form').auth(clientId, clientSecret).send({ grant_type: 'client_credentials' });

describe('npm run oauth:client', () => {
  it('prints the usage for --help, and exits 2 with a pointer to it for unknown commands or options', async () => {
    const help = await run(['--help']);
    for (const command of ['create', 'list', 'show', 'update', 'delete', 'rotate-secret', '--json']) expect(help.stdout).toContain(command);
    for (const args of [['frobnicate'], ['list', '--colour'], ['show'], ['show', 'a', 'b'], []]) {
      await expect(run(args)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('npm run oauth:client -- --help') });
    }
  }, 60_000);

  it('keeps the older form: create options without a command print the client as JSON, its secret stored as a hash', async () => {
    const { stdout, stderr } = await run([
      '--name',
      'CLI App',
      '--website',
      'https://cli.example.com',
      '--redirect-uri',
      'https://cli.example.com/cb',
      '--grants',
      'client_credentials,password',
    ]);
    const printed = JSON.parse(stdout);
    expect(printed).toEqual({
      client_id: expect.any(String),
      client_secret: expect.any(String),
      name: 'CLI App',
      website: 'https://cli.example.com',
      redirect_uri: 'https://cli.example.com/cb',
      grants: ['client_credentials', 'password'],
    });
    expect(stderr).toContain('Keep client_secret now');
    expect((await ClientModel.findById(printed.client_id).lean())?.secretHash).toBe(sha256(printed.client_secret));
  }, 60_000);

  it('refuses bad input with the validation message and exit code 1, registering nothing', async () => {
    const before = await ClientModel.countDocuments();
    await expect(run(['create', '--name', 'X', '--website', 'https://x.example.com', '--redirect-uri', 'not-a-url'])).rejects.toMatchObject(
      {
        code: 1,
        stderr: expect.stringContaining('redirect_uri must be an absolute http(s) URL without a fragment'),
      },
    );
    await expect(
      run([
        'create',
        '--name',
        'X',
        '--website',
        'https://x.example.com',
        '--redirect-uri',
        'https://x.example.com/cb',
        '--grants',
        'magic',
      ]),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('grants must be a non-empty list') });
    expect(await ClientModel.countDocuments()).toBe(before);
  }, 60_000);

  it('creates, lists, shows, updates, rotates the secret of and deletes a client', async () => {
    const owner = await createUser();
    const created = await run([
      'create',
      '--name',
      'Life Cycle',
      '--website',
      'https://cycle.example.com',
      '--redirect-uri',
      'https://cycle.example.com/cb',
      '--grants',
      'client_credentials',
      '--owner',
      owner.email,
    ]);
    const clientId = /^client_id\s+(\S+)$/m.exec(created.stdout)?.[1] ?? '';
    const secret = /^client_secret\s+(\S+)$/m.exec(created.stdout)?.[1] ?? '';
    expect(created.stdout).toMatch(/^grants\s+client_credentials$/m);
    await clientCredentials(clientId, secret).expect(200);

    const listed = await runJson<{ client_id: string; owner_id: string }[]>(['list', '--owner', owner.email]);
    expect(listed).toEqual([
      expect.objectContaining({ client_id: clientId, owner_id: owner.id, token_endpoint_auth_method: 'client_secret_basic' }),
    ]);
    expect((await run(['list'])).stdout).toMatch(new RegExp(`^${clientId}\\s+Life Cycle\\s+client_credentials\\s+${owner.id}$`, 'm'));

    const updated = await runJson([
      'update',
      clientId,
      '--name',
      '  Renamed  ',
      '--redirect-uri',
      'https://cycle.example.com/a',
      '--redirect-uri',
      'HTTPS://Cycle.example.com/b',
    ]);
    expect(updated).toMatchObject({
      name: 'Renamed',
      website: 'https://cycle.example.com',
      redirect_uri: 'https://cycle.example.com/a',
      // Kept as written: redirect URIs match as exact strings (docs/decisions.md, Redirect URIs).
      redirect_uris: ['https://cycle.example.com/a', 'HTTPS://Cycle.example.com/b'],
      grants: ['client_credentials'],
    });
    expect(await runJson(['show', clientId])).toEqual(updated);
    // Both redirect URIs now pass the authorization endpoint's check, as written; the old one does not.
    const authorize = (redirectUri: string) =>
      request(app).get('/oauth/authorize').query({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri });
    expect((await authorize('HTTPS://Cycle.example.com/b')).text).not.toContain('Invalid redirect address');
    expect((await authorize('https://cycle.example.com/b').expect(400)).text).toContain('Invalid redirect address');
    expect((await authorize('https://cycle.example.com/cb').expect(400)).text).toContain('Invalid redirect address');

    const rotated = await runJson<{ client_secret: string }>(['rotate-secret', clientId]);
    expect(rotated.client_secret).not.toBe(secret);
    // The command is another process: the running app refuses the old secret within a second, as its
    // clients are kept behind a change signal it reads twice a second (docs/operations.md).
    expect(await msUntilFalse(async () => (await clientCredentials(clientId, secret)).status === 200)).toBeLessThanOrEqual(1000);
    await clientCredentials(clientId, secret).expect(401);
    const token = await clientCredentials(clientId, rotated.client_secret).expect(200);

    const deleted = await run(['delete', clientId]);
    expect(deleted.stdout).toContain(`deleted ${clientId}`);
    expect(await ClientModel.findById(clientId).lean()).toBeNull();
    const me = () => request(app).get('/api/user').set('Authorization', `Bearer ${token.body.access_token}`);
    expect(await msUntilFalse(async () => (await me()).status !== 401)).toBeLessThanOrEqual(1000);
    await me().expect(401);
    await expect(run(['show', clientId])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`no client has the id ${clientId}`),
    });
  }, 120_000);

  it('takes a client_id that begins with "-" or "--" (base64url ids can) as the client_id, not an option', async () => {
    for (const clientId of ['-Leading-dash-client-id1', '--Leading-dashes-client-id']) {
      await clientsService.put(clientId, 'a-secret-of-the-client-for-the-test', {
        name: 'Dashed',
        website: 'https://dashed.example.com',
        redirect_uri: 'https://dashed.example.com/cb',
      });
      expect(await runJson(['show', clientId])).toMatchObject({ client_id: clientId, name: 'Dashed' });
      expect(await runJson(['update', clientId, '--name', '-Still dashed'])).toMatchObject({ name: '-Still dashed' });
      expect((await run(['delete', clientId])).stdout).toContain(`deleted ${clientId}`);
    }
  }, 60_000);

  it('refuses to update a client into an invalid one, changing nothing', async () => {
    const client = await runJson<{ client_id: string }>([
      'create',
      '--name',
      'Keep',
      '--website',
      'https://keep.example.com',
      '--redirect-uri',
      'https://keep.example.com/cb',
    ]);
    await expect(run(['update', client.client_id, '--website', 'ftp://keep.example.com'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('website must be an absolute http(s) URL'),
    });
    await expect(run(['update', client.client_id])).rejects.toMatchObject({ code: 2 });
    expect(await runJson(['show', client.client_id])).toMatchObject({ website: 'https://keep.example.com' });
  }, 60_000);
});
