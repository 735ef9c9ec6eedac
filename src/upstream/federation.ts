// Every provider people sign in through, as the upstream controller sees it (docs/upstream.md): the
// OpenID providers of UPSTREAM_PROVIDERS through openid-client, and GitHub through passport-github2.
// Each says where its callback comes back and which cookie keeps its state, how to leave for it, how
// to read the person from its callback, and who that person is here. The controller does the rest
// once for all of them: the state cookie and its check, the failure page, the journey.
import type { Config } from '../config';
import type { GitHubClient } from './github.client';
import type { AuthorizationChecks, UpstreamClient } from './upstream.client';
import * as upstreamService from './upstream.service';
import type { UpstreamProvider } from './upstream.settings';

/** RFC 8176 methods a trusted provider may add to `fed` (anything else it says is dropped). */
const KNOWN_AMR = new Set(['pwd', 'otp', 'hwk', 'swk', 'mfa', 'sms', 'face', 'fpt', 'pin', 'user', 'kba', 'sc']);

export interface Federation {
  readonly id: string;
  /** Shown on pages: "GitHub", "Acme ID". */
  readonly name: string;
  /** The redirect URI the provider sends the browser back to. */
  readonly redirectUri: string;
  /** The path of this server's callback route: the state cookie is scoped to it. */
  readonly callbackPath: string;
  /** The state cookie's name. */
  readonly stateCookie: string;
  /** An OpenID provider's settings: such a provider can be linked (from /account, or by proving an account); GitHub cannot. */
  readonly openid?: UpstreamProvider;
  /** Where to send the browser, and the checks to keep for the callback. Throws an UpstreamFailure. */
  start(): Promise<{ url: string; checks: AuthorizationChecks }>;
  /** The callback (its state already checked): the person, and the methods proven. Throws an UpstreamFailure. */
  finish(callbackUrl: URL, checks: AuthorizationChecks): Promise<{ person: upstreamService.UpstreamPerson; amr: string[] }>;
  /** Who the person is here: found, made now, or why neither. */
  arrive(person: upstreamService.UpstreamPerson, now: Date): Promise<upstreamService.Arrival>;
}

export const openIdCallbackPath = (providerId: string) => `/auth/upstream/${providerId}/callback`;

/** An OpenID provider of UPSTREAM_PROVIDERS. */
export function openIdFederation(config: Config, provider: UpstreamProvider, client: UpstreamClient): Federation {
  const callbackPath = openIdCallbackPath(provider.id);
  const redirectUri = `${config.publicUrl}${callbackPath}`;
  return {
    id: provider.id,
    name: provider.name,
    redirectUri,
    callbackPath,
    stateCookie: `upstream_${provider.id}`,
    openid: provider,
    start: () => client.start(provider, redirectUri),
    async finish(callbackUrl, checks) {
      const person = await upstreamService.personOf(provider, await client.finish(provider, callbackUrl, redirectUri, checks));
      const trusted = provider.trustAmr && person.amr ? person.amr.filter((method) => KNOWN_AMR.has(method)) : [];
      return { person, amr: [...new Set(['fed', ...trusted])] };
    },
    arrive: (person, now) => upstreamService.arrive(provider, person, now),
  };
}

/** GitHub (seed 001): GET /auth/github both leaves and comes back; accounts are found by `github_id`, never by email. */
export function gitHubFederation(config: Config, client: GitHubClient): Federation {
  return {
    id: 'github',
    name: 'GitHub',
    redirectUri: config.github.callbackUrl,
    callbackPath: '/auth/github',
    stateCookie: 'github_state',
    start: () => Promise.resolve(client.start()),
    async finish(callbackUrl) {
      const query = callbackUrl.searchParams;
      const account = await client.finish({ code: query.get('code') ?? undefined, error: query.get('error') ?? undefined });
      const { providerId, avatarUrl, ...rest } = account;
      return { person: { subject: providerId, picture: avatarUrl, ...rest }, amr: ['fed'] };
    },
    arrive: (person) => upstreamService.arriveWithProviderAccount('github', person),
  };
}
