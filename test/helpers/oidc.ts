// openid-client against the live app: the issuer is plain http on 127.0.0.1, which openid-client
// allows only when told to.
import * as oidc from 'openid-client';
import request from 'supertest';
import { createUser } from './factories';
import { startLiveApp, type LiveApp } from './live-app';

export const insecure = { execute: [oidc.allowInsecureRequests] };

/** The live app for the file's tests, started before them and stopped after them. */
export function useLiveApp(overrides: Record<string, string> = {}, deps: Parameters<typeof startLiveApp>[1] = {}): () => LiveApp {
  let live: LiveApp | undefined;
  beforeAll(async () => {
    live = await startLiveApp(overrides, deps);
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

/** Node reaches a browser test's server on 127.0.0.1; the browser knows it as localhost (WebAuthn needs a name). */
export const toLoopback = (url: string | URL) => url.toString().replace('//localhost:', '//127.0.0.1:');

/**
 * A relying party registered with a browser test's server by openid-client's dynamic registration,
 * the initial access token a person's seed 000 login; its requests go to 127.0.0.1.
 */
export async function browserRelyingParty(
  base: string,
  person: { email: string; password: string },
  metadata: { client_name: string; redirect_uris: string[] },
): Promise<oidc.Configuration> {
  const login = await fetch(toLoopback(`${base}/auth`), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: person.email, password: person.password }),
  });
  const { accessToken } = (await login.json()) as { accessToken: string };
  const loopbackFetch: oidc.CustomFetch = (url, options) => fetch(toLoopback(url), options);
  const config = await oidc.dynamicClientRegistration(new URL(base), metadata, undefined, {
    ...insecure,
    initialAccessToken: accessToken,
    [oidc.customFetch]: loopbackFetch,
  });
  config[oidc.customFetch] = loopbackFetch;
  return config;
}

/**
 * A client registered through POST /oauth/register (RFC 7591) by a new person's seed 000 token:
 * the raw answer, for tests that look at refusals too.
 */
export async function registrationAnswer(app: import('express').Express, metadata: Record<string, unknown>) {
  const person = await createUser();
  const login = await request(app).post('/auth').send({ email: person.email, password: person.password }).expect(201);
  return request(app).post('/oauth/register').set('Authorization', `Bearer ${login.body.accessToken}`).send(metadata);
}
