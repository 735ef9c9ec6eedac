// Second factors (docs/security.md): the second step at /login/verify (and /login/step-up for a
// signed-in person), passkey sign-in at /login/passkey, the factor pages under /account, and the
// passkey scripts under /assets.
import { SCRIPT_CONTENT_TYPE } from '../common/content-types';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import { jsonBody } from '../common/json-body';
import { limitsFor, perAddress } from '../common/rate-limit';
import { jsonRefusals } from '../common/refusals';
import { pageRefusals } from '../web/layout';
import type { Config } from '../config';
import type { ActivityLog } from '../account/activity.service';
import { requireSession } from '../session/session.middleware';
import type { FactorVerifier } from '../sign-in/sign-in.service';
import type { UserStore } from '../users/users.service';
import type { Csrf } from '../web/csrf';
import { pageFormBody } from '../web/form-body';
import { createFactorsController } from './factors.controller';
import { createPasskeySignInController } from './passkey-sign-in.controller';
import { createSecondFactorController } from './second-factor.controller';
import { createStepUpController } from './step-up.controller';
import { createPasskeys, type Passkeys } from './passkeys.service';
import { createTotp, type Totp } from './totp.service';
import type { Clock } from '../common/clock';
import type { Journey } from '../sign-in/journey.types';
import type { FactorNotice } from './factors.service';
import { ASSET_SCRIPTS, FACTOR_RULES } from './factors.rules';

const SCRIPTS: Record<(typeof ASSET_SCRIPTS)[number], string> = {
  // The package's own browser bundle (its exports name no subpath for it): beside its CommonJS entry.
  'webauthn-browser.js': path.join(path.dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'),
  'passkeys.js': path.join(__dirname, '..', '..', 'public', 'passkeys.js'),
};

/** The authenticator-app and passkey services of one app, made once by createApp. */
export function createFactors(config: Config, clock: Clock): { totp: Totp; passkeys: Passkeys } {
  const site = new URL(config.publicUrl).host;
  return {
    totp: createTotp({ issuer: site, sealingSecret: config.oauth.signingKeysSecret, clock }),
    passkeys: createPasskeys({ publicUrl: config.publicUrl, rpName: site }),
  };
}

export function createFactorsRouter(
  config: Config,
  sessions: RequestHandler,
  csrf: Csrf,
  journey: Journey,
  services: { totp: Totp; passkeys: Passkeys; users: UserStore },
  activity: ActivityLog,
  verifyFactor: FactorVerifier,
  notices: { notify: FactorNotice },
): Router {
  const factors = createFactorsController({ csrf, journey, ...services, activity, ...notices });
  // The prompts of signing in, one controller each.
  const secondFactor = createSecondFactorController({ csrf, journey, ...services, verifyFactor });
  const stepUp = createStepUpController(journey);
  const passkeyAlone = createPasskeySignInController(journey, services.passkeys);
  const optionLimits = limitsFor(config, [perAddress('passkey-options:address', FACTOR_RULES.passkeyOptionsPerAddress)]);
  const form = [sessions, pageFormBody, csrf.require];
  const json = [sessions, jsonBody, csrf.require];
  const person = requireSession('sign-in', '/account');
  const personJson = requireSession('unauthorized');

  const router = Router();
  const scripts = Object.fromEntries(Object.entries(SCRIPTS).map(([name, file]) => [name, readFileSync(file, 'utf8')]));
  router.get('/assets/:script', (req, res, next) => {
    const script = (scripts as Record<string, string | undefined>)[req.params.script];
    if (script === undefined) return next();
    res.type(SCRIPT_CONTENT_TYPE).set('Cache-Control', 'public, max-age=3600').send(script);
  });

  // The pages, and the JSON routes the passkey scripts call (their refusals are `{ error }`, the Error schema).
  const pages = Router();
  const scriptApi = Router();
  pages.get('/login/step-up', sessions, requireSession(), stepUp.stepUp);
  pages.get('/login/verify', sessions, secondFactor.showVerify);
  pages.post('/login/verify', ...form, secondFactor.verifyCode);
  // Nothing waiting is a 400 before the form token is looked at: there is nothing to protect.
  const pendingJson = [sessions, jsonBody, secondFactor.requirePending, csrf.require];
  scriptApi.post('/login/verify/passkey/options', ...pendingJson, secondFactor.secondStepPasskeyOptions);
  scriptApi.post('/login/verify/passkey', ...pendingJson, secondFactor.secondStepPasskey);
  scriptApi.post('/login/passkey/options', ...json, ...optionLimits, passkeyAlone.passkeyOptions);
  scriptApi.post('/login/passkey', ...json, passkeyAlone.passkeySignIn);

  pages.get('/account/totp', sessions, requireSession(), factors.showTotp);
  pages.post('/account/totp', sessions, pageFormBody, person, csrf.require, factors.confirmTotp);
  pages.post('/account/totp/remove', sessions, pageFormBody, person, csrf.require, factors.removeTotp);
  pages.post('/account/recovery-codes', sessions, pageFormBody, person, csrf.require, factors.regenerateCodes);
  pages.get('/account/recovery-codes/first', sessions, requireSession(), factors.firstCodes);
  pages.get('/account/recovery-codes/new', sessions, requireSession(), factors.showNewCodes);
  scriptApi.post('/account/passkeys/options', sessions, jsonBody, personJson, csrf.require, factors.registrationOptions);
  scriptApi.post('/account/passkeys', sessions, jsonBody, personJson, csrf.require, factors.register);
  pages.post('/account/passkeys/:id/rename', sessions, pageFormBody, person, csrf.require, factors.renamePasskey);
  pages.post('/account/passkeys/:id/remove', sessions, pageFormBody, person, csrf.require, factors.removePasskey);
  pages.use(pageRefusals);
  scriptApi.use(jsonRefusals);
  router.use(pages, scriptApi);
  return router;
}
