// Builds the Express apps without listening: middleware, feature routers, 404 and the error handler.
// createApp serves every route; createWeatherApp only the weather routes, for WEATHER_PORT.
import express, { type Express } from 'express';
import { createAuthRouter } from './auth/auth.routes';
import { createCatalogueV1Router } from './catalogue/catalogue.routes';
import { createAccessTokens } from './common/access-tokens';
import { errorHandler, notFoundHandler } from './common/error-handler';
import { jsonBody } from './common/json-body';
import { collectProcessMetrics } from './common/metrics';
import type { Logger } from './common/logger';
import { requestIds, requestLogging } from './common/request-logging';
import { corsFor, securityHeaders } from './common/security';
import { createBrowserClientCors } from './oauth/clients/browser-cors.middleware';
import { createHealthRouter } from './health/health.routes';
import { createMetricsRouter } from './health/metrics.routes';
import { createLandingRouter } from './landing/landing.routes';
import { STYLE_HASH } from './web/layout';
import type { Config } from './config';
import { createOAuthRouter } from './oauth/oauth.routes';
import { oauthRefusals } from './oauth/oauth.errors';
import { providerDocumentRoutes } from './oauth/oidc/oidc.routes';
import { createKeyRing, keyRingOptions } from './oauth/oidc/signing-keys.service';
import { createOpenApiRouter } from './openapi/openapi.routes';
import { browserCookies } from './web/cookies';
import { createCsrf } from './web/csrf';
import { createSessionMiddleware, sessionCsrf } from './session/session.middleware';
import { createSessionRouter } from './session/session.routes';
import { createUpstreamClient } from './upstream/upstream.client';
import { createRolesRouter } from './oauth/roles/roles.routes';
import { createResourcesRouter } from './oauth/resources/resources.routes';
import { createAdminRouter } from './admin/admin.routes';
import { createAdministration } from './admin/admin.service';
import { createConsoleRouter } from './admin/console.routes';
import { createUpstreamRouter } from './upstream/upstream.routes';
import { createUsersRouter } from './users/users.routes';
import * as usersService from './users/users.service';
import { createWeatherRouter, HELLO } from './weather/weather.routes';
import { staticRoutes, type StaticSource } from './common/static-document';
import { createSignIn } from './sign-in/sign-in.service';
import { createLifecycle } from './wiring';
import { createAccountRouter } from './account/account.routes';
import { createAccounts } from './account/account.service';
import { createActivityLog } from './account/activity.service';
import { createDevMailRouter } from './mail/dev-mail.routes';
import { createFactors, createFactorsRouter } from './factors/factors.routes';
import { createFactorActions } from './factors/factors.service';
import { createDecisionHold, createJourney } from './sign-in/interaction';
import { systemClock, type Clock } from './common/clock';
import { RESOURCE_SCOPE } from './oauth/protocol';
import { createMailer, type Mailer } from './mail/mailer';
import { createStores, type Stores } from './stores';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** The time the sign-in journey and second factors read; tests pass one they move. */
  clock?: Clock;
  /** The server passes its own, to let queued mail out at shutdown; otherwise the app makes one. */
  mailer?: Mailer;
  /** How requests reach the upstream OpenID providers (tests route real host names to loopback); fetch by default. */
  upstreamFetch?: typeof fetch;
  /** The records' stores; made here with `clock` unless given (a test looks into the one it gives). */
  stores?: Stores;
}

interface AppOptions {
  /** The health probes and the metrics route. */
  probes: boolean;
  /** The main app's stores: its OpenID provider answers CORS for the web origins of public clients. */
  stores?: Stores;
  /** Served right after the request log and CORS, beside GET /hello: the same bytes for everyone (discovery, the JWK Set). */
  documents?: [string, StaticSource][];
}

function buildApp({ config, logger }: AppDeps, mountRoutes: (app: Express) => void, options: AppOptions): Express {
  collectProcessMetrics();
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.use(requestIds);
  if (options.probes) app.use(createHealthRouter());
  if (options.probes && config.metricsToken) app.use(createMetricsRouter(config.metricsToken));
  app.use(requestLogging(logger));
  // The main app's OpenID provider answers CORS for browser apps itself; the weather app has no such routes.
  const browserClients = options.stores ? createBrowserClientCors(config, options.stores.clientOrigins) : null;
  if (browserClients) app.use(browserClients.middleware);
  const cors = corsFor(config, (path) => browserClients?.handles(path) ?? false);
  if (cors) app.use(cors);
  app.use(staticRoutes(new Map([['/hello', () => HELLO], ...(options.documents ?? [])])));
  // The busiest routes, plain text and JSON for programs: ahead of the pages' security headers (they
  // set only nosniff), the body parser and every other router.
  app.use(createWeatherRouter(config.weather));
  app.use(securityHeaders(STYLE_HASH, config.publicUrl));
  mountRoutes(app);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

export function createApp({
  config,
  logger,
  mailer = createMailer(config, logger),
  clock = systemClock,
  upstreamFetch,
  stores = createStores(clock, config),
}: AppDeps): Express {
  const keys = createKeyRing(keyRingOptions(config.oauth), clock);
  return buildApp(
    { config, logger },
    (app) => {
      const accessTokens = createAccessTokens(config.jwtSecret, (userId) => usersService.credentialsStamp(stores.users, userId));
      // One session middleware, mounted only on the browser routes.
      const sessions = createSessionMiddleware(config, stores.users);
      const csrf = createCsrf(config, sessionCsrf);
      const activity = createActivityLog(logger);
      const lifecycle = createLifecycle(config, logger, stores.clients);
      const accounts = createAccounts(config, mailer, activity, logger, lifecycle.accessEnded, stores.users);
      // The one password check, shared by every surface that checks a password.
      const signIn = createSignIn(config, stores.users, {
        failed: (userId, address) => activity.record(userId, 'sign-in-failed', { address }),
        guessing: accounts.factorGuessing,
      });
      // Every way in and every step-up goes through the one journey (sign-in/interaction.ts).
      const factors = createFactors(config, clock);
      const notify = accounts.factorChanged;
      const actions = createFactorActions({ ...factors, activity, notify });
      const decisions = createDecisionHold(clock, config.rateLimits);
      const oauth = createOAuthRouter(config, accessTokens, sessions, csrf, signIn.verify, lifecycle, keys, clock, stores, decisions, {
        activity,
        upstreamFetch,
      });
      const journey = createJourney({
        clock,
        cookies: browserCookies(config),
        activity,
        actions,
        sessionEnded: lifecycle.sessionEnded,
        resume: oauth.resume,
      });
      app.use(oauth.router);
      app.use(createRolesRouter(oauth.adminToken, activity));
      app.use(createResourcesRouter(config, oauth.adminToken, activity));
      const administration = createAdministration(config, activity, lifecycle, accounts, stores);
      app.use(createAdminRouter(oauth.adminToken, oauth.adminJsonBody, administration, oauthRefusals));
      app.use(jsonBody);
      app.use('/users', createUsersRouter(config, accessTokens, lifecycle.accessEnded, signIn.verify));
      app.use('/auth', createAuthRouter(accessTokens, config, signIn.verify));
      const catalogueToken = oauth.requireOAuthToken({
        scope: RESOURCE_SCOPE,
        realm: 'catalogue',
        invalidTokenError: 'invalid_token',
        clientToken: 'accepted',
        missingDescription: 'Send HTTP Basic credentials or an access token',
      });
      app.use('/api/v1', createCatalogueV1Router(signIn.verifyRepeated, catalogueToken));
      app.use(createSessionRouter(sessions, csrf, config, signIn.verifyPerson, lifecycle.sessionEnded, journey, stores.clients));
      const upstreamClient = createUpstreamClient({ timeoutMs: config.upstream.timeoutMs, fetch: upstreamFetch });
      app.use(
        createUpstreamRouter(sessions, csrf, {
          config,
          logger,
          clock,
          journey,
          activity,
          verifyPerson: signIn.verifyPerson,
          client: upstreamClient,
        }),
      );
      app.use(createConsoleRouter(sessions, { config, csrf, journey, admin: administration }));
      app.use(
        createAccountRouter(config, sessions, csrf, accounts, activity, signIn.verify, lifecycle.sessionEnded, journey, stores.clients),
      );
      app.use(
        createFactorsRouter(config, sessions, csrf, journey, { ...factors, users: stores.users }, activity, signIn.verifyFactor, {
          notify,
        }),
      );
      // The development outbox: never in production (there is no outbox there either).
      if (!config.isProduction && mailer.outbox() !== null) app.use(createDevMailRouter(mailer));
      app.use(createOpenApiRouter());
      app.use(createLandingRouter(config.isProduction));
    },
    { probes: true, stores, documents: providerDocumentRoutes(config, keys) },
  );
}

/** WEATHER_PORT's app: the weather routes (which every app serves) and nothing else. */
export function createWeatherApp({ config, logger }: AppDeps): Express {
  return buildApp({ config, logger }, () => undefined, { probes: false });
}

/** METRICS_PORT's app: GET /metrics for anyone who can reach the port, and nothing else. */
export function createMetricsApp(): Express {
  collectProcessMetrics();
  const app = express();
  app.disable('x-powered-by');
  app.use(createMetricsRouter(null));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
