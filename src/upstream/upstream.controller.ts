// Sign-in through an upstream OpenID provider (docs/upstream.md): GET /auth/upstream/<id> leaves for
// the provider, GET /auth/upstream/<id>/callback comes back; /account/providers/<id>/link and /unlink
// manage links (the link prompt, /login/link, is link.controller.ts). What comes after a
// provider (a second factor, the page asked for) is the sign-in journey's to decide.
import type { Request, Response } from 'express';
import type { ActivityLog } from '../account/activity.service';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import { noStore } from '../common/no-store';
import { displayAddress } from '../common/rate-limit';
import { readQuery } from '../common/request-fields';
import { START_QUERY } from './upstream.fields';
import type { Config } from '../config';
import { sessionUserId, signedInPerson } from '../session/session.middleware';
import { safeReturnTo } from '../session/session.service';
import type { Journey } from '../sign-in/journey.types';
import type { PersonVerifier } from '../sign-in/sign-in.service';
import type { Csrf } from '../web/csrf';
import { pageError } from '../web/layout';
import { callbackPath, createStateCookie } from './upstream-state';
import { UpstreamFailure, type UpstreamClient } from './upstream.client';
import { linkRefusedPage } from './upstream.page';
import * as upstreamService from './upstream.service';
import type { UpstreamProvider } from './upstream.settings';

/** RFC 8176 methods a trusted provider may add to `fed` (anything else it says is dropped). */
const KNOWN_AMR = new Set(['pwd', 'otp', 'hwk', 'swk', 'mfa', 'sms', 'face', 'fpt', 'pin', 'user', 'kba', 'sc']);

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
  const providers = new Map(config.upstream.providers.map((provider) => [provider.id, provider]));
  const state = createStateCookie(config.sessionSecret, config.isProduction);
  const redirectUri = (provider: UpstreamProvider) => `${config.publicUrl}${callbackPath(provider.id)}`;
  const origin = (req: Request, detail: string) => ({ address: displayAddress(req), detail });

  function providerOf(req: Request<{ id: string }>): UpstreamProvider {
    const provider = providers.get(req.params.id);
    if (!provider) throw pageError(404, 'Unknown sign-in provider', 'There is no sign-in provider by that name.');
    return provider;
  }

  /** The failure's page, and one log line with the provider's error code (never its tokens). */
  function failed(provider: UpstreamProvider, failure: UpstreamFailure) {
    logger.warn({ provider: provider.id, failure: failure.kind, code: failure.code }, 'upstream sign-in failed');
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
  async function leave(req: Request, res: Response, provider: UpstreamProvider, returnTo: string, linkFor?: string) {
    const started = await client.start(provider, redirectUri(provider));
    state.set(res, provider.id, { ...started.checks, returnTo, linkFor, at: clock.now() });
    noStore(res).redirect(req.method === 'GET' ? 302 : 303, started.url);
  }

  return {
    /** The page for a provider that failed (start, callback): on the routes of a provider (`:id`), before the pages' presenter. */
    failures(err: unknown, req: Request<{ id: string }>, _res: Response, next: (err: unknown) => void): void {
      next(err instanceof UpstreamFailure ? failed(providerOf(req), err) : err);
    },

    async start(req: Request<{ id: string }>, res: Response): Promise<void> {
      const provider = providerOf(req);
      await leave(req, res, provider, safeReturnTo(readQuery(START_QUERY, req).return_to));
    },

    /** POST /account/providers/:id/link: the signed-in person links a provider, coming back to /account. */
    async startLink(req: Request<{ id: string }>, res: Response): Promise<void> {
      const provider = providerOf(req);
      await leave(req, res, provider, '/account', signedInPerson(res)._id);
    },

    async callback(req: Request<{ id: string }>, res: Response): Promise<void> {
      const provider = providerOf(req);
      const saved = state.take(req, res, provider.id, clock.now());
      if (!saved || (saved.linkFor !== undefined && saved.linkFor !== sessionUserId(req))) {
        throw pageError(
          400,
          'invalid_state',
          'invalid_state: this sign-in link was already used or did not start here. Please sign in again.',
        );
      }
      const claims = await client.finish(provider, new URL(req.originalUrl, config.publicUrl), redirectUri(provider), saved);
      const person = await upstreamService.personOf(provider, claims);
      const now = new Date(clock.now());
      if (saved.linkFor !== undefined) {
        const refusal = await upstreamService.link(provider, person, saved.linkFor, now);
        if (refusal) throw linkRefusedPage(provider.name, refusal);
        await activity.record(saved.linkFor, 'provider-linked', origin(req, provider.name));
        return void res.redirect(302, '/account?done=provider-linked');
      }
      const amr =
        provider.trustAmr && person.amr ? [...new Set(['fed', ...person.amr.filter((method) => KNOWN_AMR.has(method))])] : ['fed'];
      const arrival = await upstreamService.arrive(provider, person, now);
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
