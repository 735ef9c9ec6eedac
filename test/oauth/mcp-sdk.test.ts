// The MCP TypeScript SDK end to end (issue 53, "Done when"): the SDK's client, against an SDK MCP
// server this server protects (RFC 9728 metadata, the SDK's bearer middleware, JWT access tokens for
// a registered resource), discovers this server from the 401, registers (by its Client ID Metadata
// Document, served over https from loopback, or by open registration), signs a person in with PKCE
// and `resource`, calls a tool, refreshes, and steps up on insufficient_scope.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import * as resourcesService from '../../src/oauth/resources/resources.service';
import { ResourceModel } from '../../src/oauth/resources/resources.model';
import { DocumentClientModel } from '../../src/oauth/clients/client-documents.model';
import { useTestDatabase } from '../helpers/db';
import { startDocumentHost, type DocumentHost } from '../helpers/document-host';
import { startLiveApp, type LiveApp } from '../helpers/live-app';
import { approve, signedInAgent } from '../helpers/oauth';

useTestDatabase();

const TOOLS = 'mcp:tools';
const ADMIN = 'mcp:admin';
const CALLBACK = 'http://127.0.0.1:7777/callback';

/** An SDK MCP server at /mcp: tokens from `issuer` for its own URL, `mcp:tools` for any tool and `mcp:admin` for `purge`. */
async function startMcpServer(issuer: string) {
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  const keys = createRemoteJWKSet(new URL(`${issuer}/oauth/jwks`));
  const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as OAuthMetadata;
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(url);
  app.use(
    mcpAuthMetadataRouter({ oauthMetadata: metadata, resourceServerUrl: url, scopesSupported: [TOOLS], resourceName: 'Test MCP server' }),
  );
  const verifier = {
    async verifyAccessToken(token: string) {
      try {
        const { payload } = await jwtVerify(token, keys, { issuer, audience: url.href, typ: 'at+jwt' });
        return {
          token,
          clientId: String(payload.client_id),
          scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
          expiresAt: payload.exp,
          resource: url,
        };
      } catch {
        throw new InvalidTokenError('The access token is not valid');
      }
    },
  };
  app.post('/mcp', express.json(), requireBearerAuth({ verifier, requiredScopes: [TOOLS], resourceMetadataUrl }), (req, res, next) => {
    // The admin tool needs mcp:admin: 403 insufficient_scope names what the token must carry.
    const body = req.body as { method?: string; params?: { name?: string } };
    if (body.method === 'tools/call' && body.params?.name === 'purge' && !req.auth!.scopes.includes(ADMIN)) {
      res
        .status(403)
        .set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${TOOLS} ${ADMIN}", resource_metadata="${resourceMetadataUrl}"`)
        .json({ error: 'insufficient_scope' });
      return;
    }
    next();
  });
  app.post('/mcp', async (req, res) => {
    const mcp = new McpServer({ name: 'test-server', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says who the token acts for' }, async (extra) => ({
      content: [{ type: 'text' as const, text: `client ${extra.authInfo?.clientId} with ${extra.authInfo?.scopes.join(' ')}` }],
    }));
    mcp.registerTool('purge', { description: 'Needs mcp:admin' }, async () => ({ content: [{ type: 'text' as const, text: 'purged' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What an MCP client keeps (in memory here): its registration, its tokens, the PKCE verifier, where the browser was sent. */
class MemoryProvider implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  sentTo?: URL;
  constructor(
    readonly clientMetadataUrl?: string,
    /** A client that keeps no refresh token (so a step-up asks the person again). */
    private readonly keepsRefresh = true,
  ) {}
  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test client',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = this.keepsRefresh ? tokens : { ...tokens, refresh_token: undefined };
  }
  redirectToAuthorization(url: URL) {
    this.sentTo = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let provider: LiveApp;
let mcp: Awaited<ReturnType<typeof startMcpServer>>;
let documents: DocumentHost;

beforeAll(async () => {
  documents = await startDocumentHost();
  provider = await startLiveApp({ REGISTRATION: 'open' });
  mcp = await startMcpServer(provider.issuer);
});
afterAll(async () => {
  await Promise.all([mcp.close(), provider.close(), documents.close()]);
});
beforeEach(async () => {
  await ResourceModel.deleteMany({}).exec();
  await resourcesService.create({ publicUrl: provider.issuer }, { resource: mcp.url.href, scopes: [TOOLS, ADMIN], format: 'jwt' });
});

/** The person approves what the SDK sent the browser to; the code comes back to the client. */
async function personApproves(sentTo: URL, agent?: Awaited<ReturnType<typeof signedInAgent>>['agent']) {
  const browser = agent ?? (await signedInAgent(provider.app)).agent;
  const location = await approve(browser, Object.fromEntries(sentTo.searchParams));
  expect(location.href.startsWith(CALLBACK)).toBe(true);
  return { code: location.searchParams.get('code')!, browser };
}

/** Connects the SDK client, going through the sign-in when the server asks; the connected client. */
async function connected(client: MemoryProvider, agent?: Awaited<ReturnType<typeof signedInAgent>>['agent']) {
  const first = new StreamableHTTPClientTransport(mcp.url, { authProvider: client });
  const sdk = new Client({ name: 'sdk-test-client', version: '1.0.0' });
  try {
    await sdk.connect(first);
    return { sdk, agent };
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  const { code, browser } = await personApproves(client.sentTo!, agent);
  await first.finishAuth(code);
  const again = new Client({ name: 'sdk-test-client', version: '1.0.0' });
  await again.connect(new StreamableHTTPClientTransport(mcp.url, { authProvider: client }));
  return { sdk: again, agent: browser };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

describe('the MCP TypeScript SDK against this server', () => {
  it('registers by its Client ID Metadata Document, calls a tool, and refreshes', async () => {
    const clientId = documents.publish('/sdk-client.json', {
      client_id: `${documents.origin}/sdk-client.json`,
      client_name: 'SDK test client',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const client = new MemoryProvider(clientId);
    const { sdk } = await connected(client);
    // The SDK used the document's URL as its client_id: nothing was registered.
    expect(client.information?.client_id).toBe(clientId);
    expect(client.sentTo!.searchParams.get('resource')).toBe(mcp.url.href);
    expect(textOf(await sdk.callTool({ name: 'whoami' }))).toBe(`client ${clientId} with ${TOOLS}`);
    expect(await DocumentClientModel.findById(clientId).lean().exec()).toMatchObject({ name: 'SDK test client' });
    await sdk.close();
    // The access token goes bad: the SDK refreshes (as a public client, by its document) and carries on.
    const refreshToken = client.saved!.refresh_token;
    client.saved = { ...client.saved!, access_token: 'expired-or-revoked' };
    const { sdk: again } = await connected(client);
    expect(client.saved.refresh_token).not.toBe(refreshToken);
    expect(textOf(await again.callTool({ name: 'whoami' }))).toContain(clientId);
    await again.close();
  });

  it('registers by open registration when it has no document, and steps up on insufficient_scope', async () => {
    const client = new MemoryProvider(undefined, false);
    const { sdk, agent } = await connected(client);
    expect(client.information?.client_id).toEqual(expect.any(String));
    expect(client.information?.client_id.startsWith('https://')).toBe(false);
    expect(textOf(await sdk.callTool({ name: 'whoami' }))).toBe(`client ${client.information!.client_id} with ${TOOLS}`);
    // The admin tool: 403 insufficient_scope; the SDK asks for both scopes.
    client.sentTo = undefined;
    await expect(sdk.callTool({ name: 'purge' })).rejects.toThrow(UnauthorizedError);
    expect(client.sentTo!.searchParams.get('scope')).toBe(`${TOOLS} ${ADMIN}`);
    const { code } = await personApproves(client.sentTo!, agent);
    const stepped = new StreamableHTTPClientTransport(mcp.url, { authProvider: client });
    await stepped.finishAuth(code);
    const admin = new Client({ name: 'sdk-test-client', version: '1.0.0' });
    await admin.connect(new StreamableHTTPClientTransport(mcp.url, { authProvider: client }));
    expect(textOf(await admin.callTool({ name: 'purge' }))).toBe('purged');
    await Promise.all([sdk.close(), admin.close()]);
  });
});
