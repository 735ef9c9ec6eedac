// The step-up prompt (sign-in/prompt-policy.service.ts `step-up`): GET /login/step-up, where an
// application's acr_values=2 sends a signed-in person; the journey asks the policy and holds the second
// step, or sends them straight back.
import type { Request, Response } from 'express';
import { readQuery } from '../common/request-fields';
import { signedInPerson } from '../session/session.middleware';
import type { Journey } from '../sign-in/journey.types';
import { STEP_UP_QUERY } from './factors.fields';

export function createStepUpController(journey: Journey) {
  return {
    /** A signed-in person asked for more (acr_values=2): the second step, then back. */
    async stepUp(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      await journey.stepUp(req, res, { userId: user._id, returnTo: journey.returnTo(readQuery(STEP_UP_QUERY, req).return_to) });
    },
  };
}
