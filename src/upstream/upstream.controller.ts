// Sign-in through another provider (docs/upstream.md), one flow for all of them (federation.ts):
// GitHub at GET /auth/github (seed 001: it both leaves and comes back), each OpenID provider at GET
// /auth/upstream/<id> and /auth/upstream/<id>/callback; /account/providers/<id>/link and /unlink
// manage an OpenID provider's link (the link prompt, /login/link, is link.controller.ts). One state
// cookie, one check of it, one failure page; what comes after a provider (an active account, a
// second factor, the page asked for) is the sign-in journey's to decide.
import type { Request, Response } from 'express';
import type { ActivityLog } from '../account/activity.service';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import { noStore } from '../common/no-store';
import { displayAddress } from '../common/rate-limit';
import { readQuery } from '../common/request-fields';
import type { Config } from '../config';
import { sessionUserId, signedInPerson } from '../session/session.middleware';
import { safeReturnTo } from '../session/session.service';
import type { Journey } from '../sign-in/journey.types';
import type { PersonVerifier } from '../sign-in/sign-in.service';
import type { Csrf } from '../web/csrf';
import { pageError } from '../web/layout';
import { gitHubFederation, openIdFederation, type Federation } from './federation';
import { createGitHubClient } from './github.client';
import { createStateCookie } from './upstream-state';
import { UpstreamFailure, type UpstreamClient } from './upstream.client';
import { CALLBACK_QUERY, PROVIDER_QUERY, START_QUERY } from './upstream.fields';
import { linkRefusedPage } from './upstream.page';
import * as upstreamService from './upstream.service';

export interface UpstreamDeps {
  config: Config;
  logger: Logger;
  clock: Clock;
  journey: Journey;
  csrf: Csrf;
  activity: ActivityLog;
  verifyPerson: PersonVerifier;
  client: UpstreamClient;
}

export function createUpstreamController({ config, logger, clock, journey, activity, client }: UpstreamDeps) {
  const openIds = new Map(config.upstream.providers.map((provider) => [provider.id, openIdFederation(config, provider, client)]));
  const githubClient = createGitHubClient(config);
  const github = githubClient && gitHubFederation(config, githubClient);
  const state = createStateCookie(config.sessionSecret, config.isProduction);
  const origin = (req: Request, detail: string) => ({ address: displayAddress(req), detail });

  function providerOf(req: Request<{ id: string }>): Federation {
    const provider = openIds.get(req.params.id);
    if (!provider) throw unknownProvider();
    return provider;
  }

  const unknownProvider = () => pageError(404, 'Unknown sign-in provider', 'There is no sign-in provider by that name.');

  /** GitHub, or its 503 page when GITHUB_CLIENT_ID or GITHUB_CLIENT_SECRET is unset. */
  function gitHub(): Federation {
    if (github) return github;
    // Outside production the page says which variable is missing (the start-up warning did too).
    const { missing } = config.github;
    const names = missing ? [missing] : ['GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET'];
    const which = config.isProduction ? '' : ` (${names.join(' and ')} must be set)`;
    throw pageError(503, 'GitHub sign-in unavailable', `GitHub sign-in is not configured on this server${which}.`);
  }

  /** The failure's page, and one log line with the provider's error code (never its tokens). */
  function failed(provider: Federation, failure: UpstreamFailure) {
    logger.warn({ provider: provider.id, failure: failure.kind, code: failure.code }, 'provider sign-in failed');
    const name = provider.name;
    switch (failure.kind) {
      case 'denied':
        return pageError(403, 'Sign-in cancelled', `You did not allow ${name} to sign you in. You can sign in another way.`);
      case 'refused':
        return pageError(
          502,
          `${name} sign-in failed`,
          `${name} refused the sign-in (${failure.code}). Please try again, or sign in another way.`,
        );
      case 'unreachable':
        return pageError(
          504,
          `${name} is not answering`,
          `${name} did not answer in time. Please try again later, or sign in another way.`,
        );
      default:
        // The check that failed is a library's code (OAUTH_JWT_CLAIM_COMPARISON_FAILED...): the log has
        // it for the operator; people get words.
        return pageError(
          502,
          `${name} sign-in failed`,
          `The answer from ${name} could not be verified, so you are not signed in. Please try again later, or sign in another way.`,
        );
    }
  }

  /** Leaves for the provider, with the checks kept in this browser's state cookie. */
  async function leave(req: Request, res: Response, provider: Federation, returnTo: string, linkFor?: string) {
    const started = await provider.start();
    state.set(res, provider, { ...started.checks, returnTo, linkFor, at: clock.now() });
    noStore(res).redirect(req.method === 'GET' ? 302 : 303, started.url);
  }

  /**
   * The provider's callback: the state this browser kept (used once) and the one the provider sent
   * back must agree, then the person is read and the journey takes over (or, for a link asked from
   * /account, the link is made).
   */
  async function comeBack(req: Request, res: Response, provider: Federation): Promise<void> {
    const saved = state.take(req, res, provider, clock.now());
    const { state: sent } = readQuery(CALLBACK_QUERY, req);
    if (!saved || sent !== saved.state || (saved.linkFor !== undefined && saved.linkFor !== sessionUserId(req))) {
      throw pageError(
        400,
        'invalid_state',
        'invalid_state: this sign-in link was already used or did not start here. Please sign in again.',
      );
    }
    const { person, amr } = await provider.finish(new URL(req.originalUrl, config.publicUrl), saved);
    const now = new Date(clock.now());
    if (saved.linkFor !== undefined && provider.openid) {
      const refusal = await upstreamService.link(provider.openid, person, saved.linkFor, now);
      if (refusal) throw linkRefusedPage(provider.name, refusal);
      await activity.record(saved.linkFor, 'provider-linked', origin(req, provider.name));
      return void res.redirect(302, '/account?done=provider-linked');
    }
    const arrival = await provider.arrive(person, now);
    switch (arrival.kind) {
      case 'unverified-email':
        throw pageError(
          403,
          'Email address not confirmed',
          `${provider.name} has not confirmed ${arrival.email ? `the address ${arrival.email}` : 'an email address'} for you, so no account here can be made or found with it. Confirm it at ${provider.name}, or create an account here and link ${provider.name} from your account page.`,
        );
      case 'busy':
        throw pageError(
          409,
          'Sign-in under way',
          `Another sign-in with this ${provider.name} account is setting it up. Please sign in again in a moment.`,
        );
      case 'prove':
        await journey.holdLink(req, res, {
          provider: provider.id,
          subject: person.subject,
          email: arrival.email,
          userId: arrival.userId,
          amr,
          returnTo: saved.returnTo,
          at: clock.now(),
        });
        return void noStore(res).redirect(302, '/login/link');
      default:
    }
    if (arrival.kind === 'created') await activity.record(arrival.userId, 'signed-up', origin(req, provider.name));
    await journey.firstFactor(req, res, {
      userId: arrival.userId,
      method: 'fed',
      amr,
      remember: true,
      returnTo: saved.returnTo,
      via: provider.name,
    });
  }

  /** A provider's failure as its page; anything else goes on. */
  const failures = (provider: () => Federation) => (err: unknown, _req: Request, _res: Response, next: (err: unknown) => void) =>
    next(err instanceof UpstreamFailure ? failed(provider(), err) : err);

  return {
    /** The page for a provider that failed (start, callback): on the routes of a provider (`:id`), before the pages' presenter. */
    failures(err: unknown, req: Request<{ id: string }>, res: Response, next: (err: unknown) => void): void {
      failures(() => providerOf(req))(err, req, res, next);
    },

    /** GitHub's page for a failure, on GET /auth/:provider. */
    gitHubFailures: failures(() => gitHub()),

    async start(req: Request<{ id: string }>, res: Response): Promise<void> {
      await leave(req, res, providerOf(req), safeReturnTo(readQuery(START_QUERY, req).return_to));
    },

    /** POST /account/providers/:id/link: the signed-in person links a provider, coming back to /account. */
    async startLink(req: Request<{ id: string }>, res: Response): Promise<void> {
      await leave(req, res, providerOf(req), '/account', signedInPerson(res)._id);
    },

    async callback(req: Request<{ id: string }>, res: Response): Promise<void> {
      await comeBack(req, res, providerOf(req));
    },

    /**
     * GET /auth/:provider (seed 001): GitHub leaves without the provider's `code` (or `error`), and
     * comes back with it; any other name is unknown.
     */
    async provider(req: Request<{ provider: string }>, res: Response): Promise<void> {
      if (req.params.provider !== 'github') throw unknownProvider();
      const provider = gitHub();
      const query = readQuery(PROVIDER_QUERY, req);
      if (query.code === undefined && query.error === undefined) return leave(req, res, provider, safeReturnTo(query.return_to));
      await comeBack(req, res, provider);
    },

    async unlink(req: Request<{ id: string }>, res: Response): Promise<void> {
      const provider = providerOf(req);
      const userId = signedInPerson(res)._id;
      const outcome = await upstreamService.unlink(userId, provider.id);
      if (outcome === 'last-way-in') {
        throw pageError(
          409,
          'Cannot unlink',
          `${provider.name} is your only way to sign in. Add a passkey on your account page, or set a password with a reset link (Forgot your password?), before unlinking it.`,
        );
      }
      if (outcome === 'unlinked') await activity.record(userId, 'provider-unlinked', origin(req, provider.name));
      res.redirect(303, outcome === 'unlinked' ? '/account?done=provider-unlinked' : '/account');
    },
  };
}
