// The console's Agents page and a document client's consent page in Chromium (issue 53): an admin
// with a fresh second factor sees the clients known by their metadata documents, blocks a document
// host, sets a token exchange rule (a refused one shows the page again with the reason) and deletes
// it; a person asked by a document client sees its host, where the answer goes and the loopback
// warning. Each page is screenshot at 1280 and 390 px and checked by axe-core.
import type { Browser } from 'playwright-core';
import { DocumentClientModel, DocumentHostModel } from '../../src/oauth/clients/client-documents.model';
import { ExchangePolicyModel } from '../../src/oauth/exchange/exchange-policies.model';
import * as clientsService from '../../src/oauth/clients/clients.service';
import { describeWithBrowser, lookAt } from '../helpers/browser';
import { useServerInBrowser } from '../helpers/browser-server';
import { startDocumentHost, type DocumentHost } from '../helpers/document-host';
import { createUser } from '../helpers/factories';
import { operatorInBrowser, signInInBrowser } from '../helpers/browser-people';
import { pkcePair } from '../helpers/oauth';

describeWithBrowser('agents-browser')('agents in the console and on the consent page, in a real browser', () => {
  let documents: DocumentHost;
  beforeAll(async () => {
    documents = await startDocumentHost();
  });
  afterAll(() => documents.close());
  const live = useServerInBrowser();
  let browser: Browser;
  let base: string;
  beforeAll(() => {
    ({ browser, base } = live());
  });

  it('lists document clients, blocks a host, and sets, refuses and deletes exchange rules', async () => {
    const { page, admin } = await operatorInBrowser(browser, base);
    const seen = new Date('2026-11-20T10:00:00Z');
    await DocumentClientModel.create({
      _id: 'https://tools.example-agent-vendor.com/oauth/client-metadata-with-a-long-path.json',
      host: 'tools.example-agent-vendor.com',
      name: 'Agent Desktop',
      firstSeen: seen,
      lastSeen: seen,
    });
    const agent = await clientsService.register(admin.id, {
      name: 'Agent',
      website: 'https://agent.example',
      redirect_uri: 'https://agent.example/cb',
    });

    await page.goto(`${base}/admin/agents`);
    await page.getByText('Agent Desktop').waitFor();
    await lookAt(page, 'console-agents-empty-rules');

    await page.getByLabel('Host', { exact: true }).fill('evil.example');
    await page.getByLabel('Block').check();
    await page.getByRole('button', { name: "Save the host's rule" }).click();
    await page.getByText('The host’s rule is saved'.replace('’', "'")).waitFor();
    expect(await DocumentHostModel.findById('evil.example').lean().exec()).toMatchObject({ rule: 'block' });

    // A refused rule: the page again, with the reason.
    await page.getByLabel('Client id', { exact: true }).fill('nobody-registered-this');
    await page.getByLabel('Audience').fill('https://orders.example.com/api');
    await page.getByLabel('Scopes').fill('orders:read');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await page.getByRole('alert').getByText('is not a registered client').waitFor();
    expect(await ExchangePolicyModel.countDocuments().exec()).toBe(0);

    await page.getByLabel('Client id', { exact: true }).fill(agent.client_id);
    await page.getByLabel('Audience').fill('https://orders.example.com/api');
    await page.getByLabel('Scopes').fill('orders:read orders:list');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await page.getByText('The token exchange rule is saved.').waitFor();
    await lookAt(page, 'console-agents');

    await page.getByRole('button', { name: `Delete ${agent.client_id} to https://orders.example.com/api` }).click();
    await page.getByText('The token exchange rule is deleted.').waitFor();
    expect(await ExchangePolicyModel.countDocuments().exec()).toBe(0);
    await page.getByRole('button', { name: 'Forget evil.example' }).click();
    await page.getByText('The host has no rule any more').waitFor();
    await page.goto(`${base}/admin/events?kind=exchange-policy-set`);
    await page.getByText(`${agent.client_id} to https://orders.example.com/api (access_token)`).waitFor();
  });

  it('shows a document client’s host, where the answer goes, and the loopback warning', async () => {
    const at = '/browser-client.json';
    const clientId = documents.publish(at, {
      client_id: `${documents.origin}${at}`,
      client_name: 'Local Coding Agent',
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
    });
    const person = await createUser();
    const page = await (await browser.newContext()).newPage();
    await signInInBrowser(page, base, person);
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:53682/callback',
      scope: 'openid profile',
      state: 's',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    });
    await page.goto(`${base}/oauth/authorize?${query.toString()}`);
    await page.getByRole('heading', { name: 'Authorize Local Coding Agent?' }).waitFor();
    await page.getByRole('alert').getByText('any program here could claim to be it').waitFor();
    await lookAt(page, 'consent-document-client');
  });
});
