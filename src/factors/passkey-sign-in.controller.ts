// The passkey prompt: "Use a passkey" on the sign-in page, a passkey alone (it checks the person itself:
// user verification is required). The journey asks the policy and signs the person in; the script
// follows the `redirect` this controller answers with.
import type { Request, Response } from 'express';
import { noStore } from '../common/no-store';
import { readBody } from '../common/request-fields';
import type { Journey } from '../sign-in/journey.types';
import { OPTIONS_REQUEST, PASSKEY_SIGN_IN } from './factors.fields';
import type { Passkeys } from './passkeys.service';

export function createPasskeySignInController(journey: Journey, passkeys: Passkeys) {
  return {
    /** The options for a passkey alone (no account named: the passkey says whose it is). */
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
  };
}
