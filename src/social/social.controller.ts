// GET /auth/:provider: without the provider's callback parameter it redirects to the provider; with
// it, passport exchanges the code, fetches the profile once, and the user is signed in for 30 days.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Passport } from 'passport';
import type { Config } from '../config';
import type { Logger } from '../common/logger';
import { pageError } from '../web/layout';
import type { Journey } from '../sign-in/journey.types';
import { SOCIAL_PROVIDERS } from './providers';
import * as socialService from './social.service';
import type { SocialProvider } from './social.types';
import { readQuery } from '../common/request-fields';
import { PROVIDER_QUERY } from './social.fields';

/** node-oauth, under passport, sets no timeout of its own on the provider's token and profile calls. */
const PROVIDER_DEADLINE_MS = 15_000;

/** What a provider's failure says, in a line: its OAuth error code, if any, and what failed (at most 200 characters). */
function providerFailure(err: unknown): { code?: string; reason: string } {
  const failed = err as { name?: string; message?: string; code?: unknown; oauthError?: { statusCode?: unknown } };
  const code = failed.name === 'TokenError' && typeof failed.code === 'string' ? failed.code : undefined;
  const status = typeof failed.oauthError?.statusCode === 'number' ? ` (HTTP ${failed.oauthError.statusCode})` : '';
  return { code, reason: `${failed.message ?? 'unknown error'}${status}`.slice(0, 200) };
}

export function createSocialController(config: Config, logger: Logger, journey: Journey) {
  const passport = new Passport();
  const providers = new Map<string, { provider: SocialProvider; configured: boolean }>();
  for (const provider of SOCIAL_PROVIDERS) {
    const strategy = provider.createStrategy(config, (account, done) => {
      socialService.userForAccount(provider.name, account).then((userId) => done(null, userId), done);
    });
    if (strategy) passport.use(provider.name, strategy);
    providers.set(provider.name, { provider, configured: strategy !== null });
  }

  async function finish(req: Request, res: Response, provider: SocialProvider, err: unknown, userId: unknown): Promise<void> {
    if (err) {
      // One short line: the provider's error code (a wrong client secret is incorrect_client_credentials)
      // and what failed, never its answer's body (GitHub answers some failures with an HTML page).
      const { code, reason } = providerFailure(err);
      logger.warn({ provider: provider.name, code, reason }, 'provider sign-in failed');
      throw pageError(
        502,
        `${provider.label} sign-in failed`,
        code
          ? `${provider.label} refused the sign-in (${code}). Please try again later, or sign in another way.`
          : `${provider.label} could not complete the sign-in. Please try again later.`,
      );
    }
    if (typeof userId !== 'string') {
      if (readQuery(PROVIDER_QUERY, req).error === 'access_denied') {
        throw pageError(403, 'Sign-in cancelled', `You did not allow ${provider.label} to sign you in.`);
      }
      throw pageError(
        400,
        'invalid_state',
        'invalid_state: this sign-in link was already used or did not start here. Please sign in again.',
      );
    }
    // Back to what asked (the sign-in page's return_to, kept with the state); the journey asks an
    // account with a second factor for it after the provider too.
    const returnTo = typeof res.locals.providerReturnTo === 'string' ? res.locals.providerReturnTo : '/home';
    await journey.firstFactor(req, res, { userId, method: 'fed', remember: true, returnTo, via: provider.label });
  }

  return function signIn(req: Request<{ provider: string }>, res: Response, next: NextFunction): void {
    const entry = providers.get(req.params.provider);
    if (!entry) return next(pageError(404, 'Unknown sign-in provider', 'There is no sign-in provider by that name.'));
    const { provider, configured } = entry;
    if (!configured) {
      // Outside production the page says which variable is missing (the start-up warning did too).
      const missing = config.isProduction ? '' : ` (${provider.settings(config).join(' and ')} must be set)`;
      return next(
        pageError(503, `${provider.label} sign-in unavailable`, `${provider.label} sign-in is not configured on this server${missing}.`),
      );
    }
    const deadline = setTimeout(() => {
      if (!res.headersSent)
        next(pageError(504, `${provider.label} sign-in timed out`, `${provider.label} did not answer in time. Please try again.`));
    }, PROVIDER_DEADLINE_MS);
    res.once('close', () => clearTimeout(deadline));
    const authenticate = passport.authenticate(provider.name, { session: false }, (err: unknown, userId: unknown) => {
      clearTimeout(deadline);
      if (res.headersSent) return;
      finish(req, res, provider, err, userId).catch(next);
    }) as RequestHandler;
    authenticate(req, res, next);
  };
}
