// The second step of signing in (a code or a passkey after the password, or a step-up for a person
// signed in with one factor), passkey sign-in on its own, and turning factors on and off from the
// account page. JSON answers are for public/passkeys.js.
import type { Request, Response } from 'express';
import { AppError } from '../common/errors';
import { noStore } from '../common/no-store';
import { bodyField } from '../common/request-body';
import { clientAddress, TooManyRequestsError, tooManyRequestsAs } from '../common/rate-limit';
import { deviceName } from '../common/user-agent';
import type { ActivityLog } from '../account/activity.service';
import { completeSignIn, holdSignIn, signedInPerson, signIn, type PendingSignIn, type SecondStep } from '../session/session.middleware';
import * as sessionService from '../session/session.service';
import type { FactorVerifier } from '../sign-in/sign-in.service';
import * as usersService from '../users/users.service';
import type { Csrf } from '../web/csrf';
import { errorPage, pageError } from '../web/layout';
import { allowOwnScripts } from '../web/scripts';
import { recoveryCodesPage, secondStepPage, totpEnrolPage } from './factors.page';
import { FACTOR_RULES } from './factors.rules';
import * as factorsService from './factors.service';
import { PasskeyRefused, type Passkeys } from './passkeys.service';
import * as recoveryCodes from './recovery-codes.service';
import type { Totp } from './totp.service';

const HTML = 'text/html; charset=utf-8';

const tooManyCodes = (refused: TooManyRequestsError) =>
  tooManyRequestsAs(
    errorPage('Too many attempts', 'Too many wrong codes from here or for this account. Please wait a few minutes and try again.'),
    { 'Content-Type': HTML },
    refused,
  );

/** A passkey ceremony's refusal, as JSON for the script (`{ error }`, like the API's other refusals). */
const passkeyRefusal = (message: string, status = 400) => new AppError(status, { error: message });

/** No password step waits here (none was given, or more than 5 minutes ago): a 400, not a 401, since nobody is refused. */
const NOTHING_PENDING = 'No sign-in is waiting for a second factor here: sign in again.';

/** The pending sign-in of this browser, if it is still fresh. */
function pendingOf(req: Request): PendingSignIn | null {
  const pending = req.session?.pending;
  return pending && Date.now() - pending.at < FACTOR_RULES.pendingLifetimeMs ? pending : null;
}

/** Signed in with a second factor (or a passkey) within the last few minutes: may remove factors. */
function freshlyVerified(req: Request): boolean {
  const { amr, authTime } = req.session;
  return factorsService.isMultiFactor(amr) && authTime !== undefined && Date.now() - authTime < FACTOR_RULES.freshSignInMs;
}

export function createSecondStep(): SecondStep {
  return {
    required: (userId) => factorsService.hasSecondFactor(userId),
    async start(req, res, pending) {
      await holdSignIn(req, pending);
      // After a form, 303; after a GET (GitHub's callback), 302 as any other redirect of a page.
      res.redirect(req.method === 'GET' ? 302 : 303, '/login/verify');
    },
  };
}

export function createFactorsController(deps: {
  csrf: Csrf;
  totp: Totp;
  passkeys: Passkeys;
  activity: ActivityLog;
  verifyFactor: FactorVerifier;
}) {
  const { csrf, totp, passkeys, activity, verifyFactor } = deps;
  const where = (req: Request, detail: string) => ({
    address: clientAddress(req),
    detail: `${detail}, ${deviceName(req.get('User-Agent'))}`,
  });

  async function showSecondStep(req: Request, res: Response, pending: PendingSignIn, status = 200, error?: string) {
    const summary = await factorsService.summary(pending.userId);
    allowOwnScripts(noStore(res))
      .status(status)
      .type(HTML)
      .send(secondStepPage({ csrfToken: csrf.token(req, res), passkeys: summary.passkeys.length > 0, totp: summary.totp, error }));
  }

  async function finish(req: Request, pending: PendingSignIn, factor: 'otp' | 'hwk' | 'swk', detail: string): Promise<string> {
    await completeSignIn(req, pending, factorsService.strengthened(pending.amr, factor));
    await activity.record(pending.userId, 'signed-in', where(req, detail));
    return pending.returnTo;
  }

  /** Back to the account page for a fresh second factor first, when the last one is not recent. */
  async function needsFresh(req: Request, res: Response): Promise<boolean> {
    if (freshlyVerified(req)) return false;
    const user = signedInPerson(res);
    if (!(await factorsService.hasSecondFactor(user._id))) return false;
    await holdSignIn(req, { userId: user._id, remember: false, returnTo: '/account?done=verified-again', amr: req.session.amr ?? ['pwd'] });
    res.redirect(303, '/login/verify');
    return true;
  }

  return {
    /** A signed-in person asked for more (acr_values=2, or removing a factor): the second step, then back. */
    async stepUp(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      const returnTo = sessionService.safeReturnTo(req.query.return_to);
      if (!(await factorsService.hasSecondFactor(user._id))) return void res.redirect(302, returnTo);
      await holdSignIn(req, { userId: user._id, remember: false, returnTo, amr: req.session.amr ?? ['pwd'] });
      res.redirect(302, '/login/verify');
    },

    async showVerify(req: Request, res: Response): Promise<void> {
      const pending = pendingOf(req);
      if (!pending) return void res.redirect(302, '/login');
      await showSecondStep(req, res, pending);
    },

    async verifyCode(req: Request, res: Response): Promise<void> {
      const pending = pendingOf(req);
      if (!pending) return void res.redirect(303, '/login');
      const code = bodyField(req, 'code');
      const typed = typeof code === 'string' ? code.trim().slice(0, 40) : '';
      const user = await usersService.findById(pending.userId);
      if (!usersService.isActive(user)) return void res.redirect(303, '/login');
      let used: 'app' | 'recovery code' | null = null;
      try {
        const right = await verifyFactor({ userId: user._id, email: user.email, address: clientAddress(req) }, async () => {
          if (typed.length === FACTOR_RULES.totp.digits && (await totp.verify(user._id, typed))) used = 'app';
          else if (await recoveryCodes.use(user._id, typed)) used = 'recovery code';
          return used !== null;
        });
        if (!right) {
          await activity.record(user._id, 'sign-in-failed', where(req, 'second factor'));
          return showSecondStep(req, res, pending, 401, 'That code is not right, or was used already.');
        }
      } catch (err) {
        throw err instanceof TooManyRequestsError ? tooManyCodes(err) : err;
      }
      res.redirect(303, await finish(req, pending, 'otp', used === 'app' ? 'authenticator app' : 'recovery code'));
    },

    /** The JSON second-step routes: a 400 when no sign-in waits here. */
    requirePending(req: Request, _res: Response, next: () => void): void {
      if (!pendingOf(req)) throw passkeyRefusal(NOTHING_PENDING);
      next();
    },

    async secondStepPasskeyOptions(req: Request, res: Response): Promise<void> {
      const pending = pendingOf(req);
      if (!pending) throw passkeyRefusal(NOTHING_PENDING);
      noStore(res).json(await passkeys.authenticationOptions(pending.userId));
    },

    async secondStepPasskey(req: Request, res: Response): Promise<void> {
      const pending = pendingOf(req);
      if (!pending) throw passkeyRefusal(NOTHING_PENDING);
      try {
        const { method } = await passkeys.authenticate(bodyField(req, 'response') as never, pending.userId);
        noStore(res).json({ redirect: await finish(req, pending, method, 'passkey') });
      } catch (err) {
        if (err instanceof PasskeyRefused) throw passkeyRefusal(err.message);
        throw err;
      }
    },

    async passkeyOptions(_req: Request, res: Response): Promise<void> {
      noStore(res).json(await passkeys.authenticationOptions());
    },

    /** "Sign in with a passkey": the passkey alone (it checked the person: user verification is required). */
    async passkeySignIn(req: Request, res: Response): Promise<void> {
      try {
        const { userId, method } = await passkeys.authenticate(bodyField(req, 'response') as never);
        if (!usersService.isActive(await usersService.findById(userId))) throw new PasskeyRefused('This account is disabled.');
        await signIn(req, userId, false, [method]);
        await activity.record(userId, 'signed-in', where(req, 'passkey'));
        noStore(res).json({ redirect: '/home' });
      } catch (err) {
        if (err instanceof PasskeyRefused) throw passkeyRefusal(err.message);
        throw err;
      }
    },

    async showTotp(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      const enrolment = await totp.begin(user._id, user.email ?? displayLabel(user));
      if (!enrolment) return void res.redirect(302, '/account');
      noStore(res)
        .type(HTML)
        .send(totpEnrolPage({ csrfToken: csrf.token(req, res), ...enrolment }));
    },

    async confirmTotp(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      const code = bodyField(req, 'code');
      if (typeof code !== 'string' || !(await totp.confirm(user._id, code.trim()))) {
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
      await activity.record(user._id, 'factor-added', where(req, 'authenticator app'));
      // The app is a factor now: this session was signed in with fewer, which stays as it was.
      if ((await recoveryCodes.remaining(user._id)) > 0) return void res.redirect(303, '/account?done=totp');
      noStore(res)
        .type(HTML)
        .send(recoveryCodesPage(await recoveryCodes.regenerate(user._id), 'new'));
    },

    async removeTotp(req: Request, res: Response): Promise<void> {
      if (await needsFresh(req, res)) return;
      const user = signedInPerson(res);
      if (await totp.remove(user._id)) await activity.record(user._id, 'factor-removed', where(req, 'authenticator app'));
      if (!(await factorsService.hasSecondFactor(user._id))) await recoveryCodes.removeAll(user._id);
      res.redirect(303, '/account?done=factor-removed');
    },

    async regenerateCodes(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      if (!(await factorsService.hasSecondFactor(user._id)))
        throw pageError(400, 'No second factor', 'Recovery codes come with a second factor: turn one on first.');
      if (await needsFresh(req, res)) return;
      const codes = await recoveryCodes.regenerate(user._id);
      await activity.record(user._id, 'recovery-codes-made', where(req, 'recovery codes'));
      noStore(res).type(HTML).send(recoveryCodesPage(codes, 'again'));
    },

    async registrationOptions(_req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      try {
        noStore(res).json(await passkeys.registrationOptions({ userId: user._id, userName: user.email ?? displayLabel(user) }));
      } catch (err) {
        if (err instanceof PasskeyRefused) throw passkeyRefusal(err.message);
        throw err;
      }
    },

    async register(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      const name = bodyField(req, 'name');
      try {
        const passkey = await passkeys.register(user._id, bodyField(req, 'response') as never, typeof name === 'string' ? name : '');
        await activity.record(user._id, 'factor-added', where(req, `passkey "${passkey.name}"`));
        const first = (await recoveryCodes.remaining(user._id)) === 0;
        noStore(res).json({ redirect: first ? '/account/recovery-codes/first' : '/account?done=passkey' });
      } catch (err) {
        if (err instanceof PasskeyRefused) throw passkeyRefusal(err.message);
        throw err;
      }
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
      const name = bodyField(req, 'name');
      await passkeys.rename(signedInPerson(res)._id, req.params.id, typeof name === 'string' ? name : '');
      res.redirect(303, '/account?done=passkey-renamed');
    },

    async removePasskey(req: Request<{ id: string }>, res: Response): Promise<void> {
      if (await needsFresh(req, res)) return;
      const user = signedInPerson(res);
      if (await passkeys.remove(user._id, req.params.id)) await activity.record(user._id, 'factor-removed', where(req, 'passkey'));
      if (!(await factorsService.hasSecondFactor(user._id))) await recoveryCodes.removeAll(user._id);
      res.redirect(303, '/account?done=factor-removed');
    },
  };
}

const displayLabel = (user: { uid: number }) => `user ${user.uid}`;
