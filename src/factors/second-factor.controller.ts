// The second-factor prompt (sign-in/prompt-policy.service.ts `second-factor`): the second step at
// /login/verify after a first factor, and after a step-up, with a code (authenticator app or recovery
// code) or a passkey. What comes next is the journey's; this controller writes the answers.
import type { Request, Response } from 'express';
import { noStore } from '../common/no-store';
import { clientAddress } from '../common/rate-limit';
import { readBody, readForm } from '../common/request-fields';
import type { Journey, PendingStep } from '../sign-in/journey.types';
import type { FactorVerifier } from '../sign-in/sign-in.service';
import { stepUpReason } from '../sign-in/journey.service';
import * as usersService from '../users/users.service';
import type { Csrf } from '../web/csrf';
import { HTML_CONTENT_TYPE as HTML } from '../web/html';
import { allowOwnScripts } from '../web/scripts';
import { CODE_FORM, OPTIONS_REQUEST, PASSKEY_ANSWER } from './factors.fields';
import { secondStepPage } from './factors.page';
import { FACTOR_RULES } from './factors.rules';
import { PasskeyRefused, type Passkeys } from './passkeys.service';
import * as recoveryCodes from './recovery-codes.service';
import type { Totp } from './totp.service';

/** No second step waits here (none was started, it was used, or it is over 10 minutes old): a 400, not a 401, since nobody is refused. */
const NOTHING_PENDING = 'No sign-in is waiting for a second factor here: sign in again.';

export function createSecondFactorController(deps: {
  csrf: Csrf;
  journey: Journey;
  totp: Totp;
  passkeys: Passkeys;
  users: usersService.UserStore;
  verifyFactor: FactorVerifier;
}) {
  const { csrf, journey, totp, passkeys, users, verifyFactor } = deps;

  function showSecondStep(req: Request, res: Response, pending: PendingStep, status = 200, error?: string): void {
    allowOwnScripts(noStore(res))
      .status(status)
      .type(HTML)
      .send(
        secondStepPage({
          csrfToken: csrf.token(req, res),
          passkeys: pending.factors.passkeys,
          totp: pending.factors.totp,
          stepUp: stepUpReason(pending),
          error,
        }),
      );
  }

  /** The pending step for the JSON routes, or a 400. */
  const pendingJson = async (req: Request): Promise<PendingStep> => {
    const pending = await journey.pending(req);
    if (!pending) throw new PasskeyRefused(NOTHING_PENDING);
    return pending;
  };

  return {
    async showVerify(req: Request, res: Response): Promise<void> {
      const pending = await journey.pending(req);
      if (!pending) return void res.redirect(302, journey.nothingPending(req));
      showSecondStep(req, res, pending);
    },

    async verifyCode(req: Request, res: Response): Promise<void> {
      const typed = (readForm(CODE_FORM, req).code ?? '').trim();
      const pending = await journey.pending(req);
      if (!pending) return void res.redirect(303, journey.nothingPending(req));
      // The account (its email keys the budget); whether it may still sign in is the journey's policy.
      const user = await users.findCurrent(pending.userId);
      if (!user) return void res.redirect(303, '/login');
      let used: 'authenticator app' | 'recovery code' | null = null;
      // A right app code is known before the budget is asked: its single-use mark, and the one that
      // uses up the pending step, go with the budget's hits in one command, and count only when the
      // budget has room.
      const appCode = pending.factors.totp && typed.length === FACTOR_RULES.totp.digits ? await totp.match(user._id, typed) : null;
      let stepUsed: boolean | null = null;
      const right = await verifyFactor(
        { userId: user._id, email: user.email, address: clientAddress(req) },
        async ([fresh, stepFresh]) => {
          if (appCode) {
            stepUsed = stepFresh;
            used = fresh && stepFresh ? 'authenticator app' : null;
          } else if (await recoveryCodes.use(user._id, typed)) used = 'recovery code';
          return used !== null;
        },
        pending.held,
        appCode ? [appCode, journey.useOf(pending)] : [],
      );
      // Another request used the step up first.
      if (stepUsed === false) return void res.redirect(303, journey.nothingPending(req));
      if (!right) {
        // An app code used already: the step's own mark goes back, and the step stays pending.
        if (stepUsed) await journey.giveBack(pending);
        await journey.secondFactorFailed(req, pending);
        return showSecondStep(req, res, pending, 401, 'That code is not right, or was used already.');
      }
      // The password's held hits went back with this check's own.
      const next = await journey.secondFactor(req, res, { ...pending, held: undefined }, 'otp', used!, {
        used: stepUsed === true,
        active: usersService.isActive(user),
      });
      await journey.go(req, res, next);
    },

    /** The JSON second-step routes: a 400 when no sign-in waits here. */
    async requirePending(req: Request, _res: Response, next: () => void): Promise<void> {
      await pendingJson(req);
      next();
    },

    async secondStepPasskeyOptions(req: Request, res: Response): Promise<void> {
      readBody(OPTIONS_REQUEST, [], req.body);
      noStore(res).json(await passkeys.authenticationOptions((await pendingJson(req)).userId));
    },

    async secondStepPasskey(req: Request, res: Response): Promise<void> {
      const { response } = readBody(PASSKEY_ANSWER, [], req.body);
      const pending = await pendingJson(req);
      const { method } = await passkeys.authenticate(response as never, pending.userId);
      noStore(res).json({ redirect: await journey.secondFactor(req, res, pending, method, 'passkey') });
    },
  };
}
