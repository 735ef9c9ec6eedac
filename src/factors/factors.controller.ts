// The second step of signing in (a code or a passkey after the password, or a step-up for a person
// signed in with one factor), passkey sign-in on its own, and turning factors on and off from the
// account page. JSON answers are for public/passkeys.js.
import type { Request, Response } from 'express';
import { AppError } from '../common/errors';
import { noStore } from '../common/no-store';
import { readBody, readForm, readQuery } from '../common/request-fields';
import { CODE_FORM, NEW_PASSKEY, OPTIONS_REQUEST, PASSKEY_ANSWER, PASSKEY_SIGN_IN, RENAME_FORM, STEP_UP_QUERY } from './factors.fields';
import { clientAddress, displayAddress } from '../common/rate-limit';
import { deviceName } from '../common/user-agent';
import type { ActivityLog } from '../account/activity.service';
import { signedInPerson } from '../session/session.middleware';
import { stepUpReason } from '../sign-in/journey.service';
import type { Journey, PendingStep, SecondFactor, StepUpAction } from '../sign-in/journey.types';
import type { FactorVerifier } from '../sign-in/sign-in.service';
import * as usersService from '../users/users.service';
import type { Csrf } from '../web/csrf';
import { pageError } from '../web/layout';
import { allowOwnScripts } from '../web/scripts';
import { recoveryCodesPage, secondStepPage, totpEnrolPage } from './factors.page';
import { FACTOR_RULES } from './factors.rules';
import * as factorsService from './factors.service';
import { PasskeyRefused, type Passkeys } from './passkeys.service';
import * as recoveryCodes from './recovery-codes.service';
import type { Totp } from './totp.service';
import { HTML_CONTENT_TYPE as HTML } from '../web/html';

/** No second step waits here (none was started, it was used, or it is over 10 minutes old): a 400, not a 401, since nobody is refused. */
const NOTHING_PENDING = 'No sign-in is waiting for a second factor here: sign in again.';

export function createFactorsController(deps: {
  csrf: Csrf;
  journey: Journey;
  totp: Totp;
  passkeys: Passkeys;
  users: usersService.UserStore;
  activity: ActivityLog;
  verifyFactor: FactorVerifier;
  notify: factorsService.FactorNotice;
}) {
  const { csrf, journey, totp, passkeys, users, activity, verifyFactor, notify } = deps;
  const where = (req: Request, detail: string) => ({
    address: displayAddress(req),
    detail: `${detail}, ${deviceName(req.get('User-Agent'))}`,
  });

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

  /** Where the browser goes before a factor may be added (a step-up, or signing in again), or null. */
  const confirmFirst = (req: Request, res: Response, returnTo: string) =>
    journey.confirmBeforeAdding(req, res, { userId: signedInPerson(res)._id, returnTo });

  /** The passkey routes' refusal when the session must be confirmed first: the script follows `redirect`. */
  async function passkeyAllowed(req: Request, res: Response): Promise<void> {
    const first = await confirmFirst(req, res, '/account');
    if (first) throw new AppError(403, { error: 'Confirm it is you before adding a passkey.', redirect: first });
  }

  /** A factor was added: the activity, the owner's mail, and the session counts it from now on. */
  async function added(req: Request, userId: string, what: string, factor: SecondFactor): Promise<void> {
    await activity.record(userId, 'factor-added', where(req, what));
    await notify(userId, { added: true, what, from: displayAddress(req) });
    await journey.factorAdded(req, factor);
  }

  /** The action now, or after a step-up when the session's second factor is not recent (the journey decides). */
  const confirmed = (req: Request, res: Response, action: StepUpAction) =>
    journey.stepUp(req, res, { userId: signedInPerson(res)._id, returnTo: '/account', action });

  /** The pending step for the JSON routes, or a 400. */
  const pendingJson = async (req: Request): Promise<PendingStep> => {
    const pending = await journey.pending(req);
    if (!pending) throw new PasskeyRefused(NOTHING_PENDING);
    return pending;
  };

  return {
    /** A signed-in person asked for more (acr_values=2): the second step, then back. */
    async stepUp(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      await journey.stepUp(req, res, { userId: user._id, returnTo: journey.returnTo(readQuery(STEP_UP_QUERY, req).return_to) });
    },

    async showVerify(req: Request, res: Response): Promise<void> {
      const pending = await journey.pending(req);
      if (!pending) return void res.redirect(302, journey.nothingPending(req));
      showSecondStep(req, res, pending);
    },

    async verifyCode(req: Request, res: Response): Promise<void> {
      const typed = (readForm(CODE_FORM, req).code ?? '').trim();
      const pending = await journey.pending(req);
      if (!pending) return void res.redirect(303, journey.nothingPending(req));
      const user = await users.findCurrent(pending.userId);
      if (!usersService.isActive(user)) return void res.redirect(303, '/login');
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
      const next = await journey.secondFactor(req, res, { ...pending, held: undefined }, 'otp', used!, stepUsed === true);
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

    async passkeyOptions(req: Request, res: Response): Promise<void> {
      readBody(OPTIONS_REQUEST, [], req.body);
      noStore(res).json(await passkeys.authenticationOptions());
    },

    /** "Use a passkey" on the sign-in page: the passkey alone, then back to what asked (an application's request). */
    async passkeySignIn(req: Request, res: Response): Promise<void> {
      const { response, return_to } = readBody(PASSKEY_SIGN_IN, [], req.body);
      const { userId, method } = await passkeys.authenticate(response as never);
      const returnTo = journey.returnTo(return_to);
      noStore(res).json({ redirect: await journey.passkey(req, res, { userId, method, returnTo }) });
    },

    async showTotp(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      const first = await confirmFirst(req, res, '/account/totp');
      if (first) return void res.redirect(302, first);
      const enrolment = await totp.begin(user._id, user.email ?? displayLabel(user));
      if (!enrolment) return void res.redirect(302, '/account');
      noStore(res)
        .type(HTML)
        .send(totpEnrolPage({ csrfToken: csrf.token(req, res), ...enrolment }));
    },

    async confirmTotp(req: Request, res: Response): Promise<void> {
      const { code } = readForm(CODE_FORM, req);
      const user = signedInPerson(res);
      const first = await confirmFirst(req, res, '/account/totp');
      if (first) return void res.redirect(303, first);
      if (code === undefined || !(await totp.confirm(user._id, code.trim()))) {
        const enrolment = await totp.pending(user._id, user.email ?? displayLabel(user));
        if (!enrolment) return void res.redirect(303, '/account');
        return void noStore(res)
          .status(400)
          .type(HTML)
          .send(
            totpEnrolPage({
              csrfToken: csrf.token(req, res),
              ...enrolment,
              error: 'That code is not right. Check the time on your device and try the next code.',
            }),
          );
      }
      await added(req, user._id, 'authenticator app', 'otp');
      if ((await recoveryCodes.remaining(user._id)) > 0) return void res.redirect(303, '/account?done=totp');
      noStore(res)
        .type(HTML)
        .send(recoveryCodesPage(await recoveryCodes.regenerate(user._id), 'new'));
    },

    async removeTotp(req: Request, res: Response): Promise<void> {
      await confirmed(req, res, { name: 'remove-totp' });
    },

    async regenerateCodes(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      if (!(await factorsService.hasSecondFactor(user._id)))
        throw pageError(400, 'No second factor', 'Recovery codes come with a second factor: turn one on first.');
      await confirmed(req, res, { name: 'new-recovery-codes' });
    },

    /** The recovery codes a step-up's action made, shown this once. */
    async showNewCodes(req: Request, res: Response): Promise<void> {
      const codes = await journey.takeNewRecoveryCodes(req, res);
      if (!codes) return void res.redirect(302, '/account');
      noStore(res).type(HTML).send(recoveryCodesPage(codes, 'again'));
    },

    async registrationOptions(req: Request, res: Response): Promise<void> {
      readBody(OPTIONS_REQUEST, [], req.body);
      const user = signedInPerson(res);
      await passkeyAllowed(req, res);
      noStore(res).json(await passkeys.registrationOptions({ userId: user._id, userName: user.email ?? displayLabel(user) }));
    },

    async register(req: Request, res: Response): Promise<void> {
      const { response, name = '' } = readBody(NEW_PASSKEY, [], req.body);
      const user = signedInPerson(res);
      await passkeyAllowed(req, res);
      const passkey = await passkeys.register(user._id, response as never, name);
      await added(req, user._id, `passkey "${passkey.name}"`, passkey.deviceType === 'multiDevice' ? 'swk' : 'hwk');
      const first = (await recoveryCodes.remaining(user._id)) === 0;
      noStore(res).json({ redirect: first ? '/account/recovery-codes/first' : '/account?done=passkey' });
    },

    /** After the first passkey: the recovery codes, made now and shown once (a GET the script can go to). */
    async firstCodes(_req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      if ((await recoveryCodes.remaining(user._id)) > 0 || !(await factorsService.hasSecondFactor(user._id))) {
        return void res.redirect(302, '/account');
      }
      noStore(res)
        .type(HTML)
        .send(recoveryCodesPage(await recoveryCodes.regenerate(user._id), 'new'));
    },

    async renamePasskey(req: Request<{ id: string }>, res: Response): Promise<void> {
      const { name = '' } = readForm(RENAME_FORM, req);
      await passkeys.rename(signedInPerson(res)._id, req.params.id, name);
      res.redirect(303, '/account?done=passkey-renamed');
    },

    async removePasskey(req: Request<{ id: string }>, res: Response): Promise<void> {
      await confirmed(req, res, { name: 'remove-passkey', id: req.params.id });
    },
  };
}

const displayLabel = (user: { uid: number }) => `user ${user.uid}`;
