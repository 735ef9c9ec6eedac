// Turning factors on and off from the account page (an authenticator app, passkeys, recovery codes);
// the prompts of signing in are their own controllers (second-factor, step-up, passkey-sign-in).
// JSON answers are for public/passkeys.js.
import type { Request, Response } from 'express';
import { AppError } from '../common/errors';
import { noStore } from '../common/no-store';
import { readBody, readForm } from '../common/request-fields';
import { CODE_FORM, NEW_PASSKEY, OPTIONS_REQUEST, RENAME_FORM } from './factors.fields';
import { displayAddress } from '../common/rate-limit';
import { deviceName } from '../common/user-agent';
import type { ActivityLog } from '../account/activity.service';
import { signedInPerson } from '../session/session.middleware';
import type { Journey, SecondFactor, StepUpAction } from '../sign-in/journey.types';
import type { Csrf } from '../web/csrf';
import { pageError } from '../web/layout';
import { recoveryCodesPage, totpEnrolPage } from './factors.page';
import * as factorsService from './factors.service';
import type { Passkeys } from './passkeys.service';
import * as recoveryCodes from './recovery-codes.service';
import type { Totp } from './totp.service';
import { HTML_CONTENT_TYPE as HTML } from '../web/html';

export function createFactorsController(deps: {
  csrf: Csrf;
  journey: Journey;
  totp: Totp;
  passkeys: Passkeys;
  activity: ActivityLog;
  notify: factorsService.FactorNotice;
}) {
  const { csrf, journey, totp, passkeys, activity, notify } = deps;
  const where = (req: Request, detail: string) => ({
    address: displayAddress(req),
    detail: `${detail}, ${deviceName(req.get('User-Agent'))}`,
  });

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

  return {
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
