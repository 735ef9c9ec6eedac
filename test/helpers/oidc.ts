// openid-client against the live app: the issuer is plain http on 127.0.0.1, which openid-client
// allows only when told to.
import * as oidc from 'openid-client';
import { startLiveApp, type LiveApp } from './live-app';

export const insecure = { execute: [oidc.allowInsecureRequests] };

/** The live app for the file's tests, started before them and stopped after them. */
export function useLiveApp(overrides: Record<string, string> = {}): () => LiveApp {
  let live: LiveApp | undefined;
  beforeAll(async () => {
    live = await startLiveApp(overrides);
  });
  afterAll(() => live?.close());
  return () => {
    if (!live) throw new Error('the live app starts in beforeAll');
    return live;
  };
}

/** An authorization URL with a fresh S256 PKCE pair, as openid-client builds it. */
export async function authorizationUrl(config: oidc.Configuration, parameters: Record<string, string>) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    ...parameters,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { url, verifier };
}
