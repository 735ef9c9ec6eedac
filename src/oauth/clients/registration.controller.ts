// RFC 7591 registration (authorized by a seed 000 access token from POST /auth, or with REGISTRATION=open
// by nobody, for public clients) and RFC 7592 reading and deleting a registration (authorized by its
// registration access token).
import type { Request, Response } from 'express';
import type { AccessTokens } from '../../common/access-tokens';
import { bearerToken } from '../../common/authorization';
import { bearerChallenge } from '../../common/bearer-challenge';
import { AppError } from '../../common/errors';
import { noStore } from '../../common/no-store';
import type { Clock } from '../../common/clock';
import type { Config } from '../../config';
import { throttled } from '../../db/sweeper';
import * as clientsService from './clients.service';
import * as registrationService from './registration.service';

/** RFC 6750 §3.1: the bearer token (initial or registration access token) is missing or wrong. */
function invalidToken(description: string): AppError {
  return new AppError(
    401,
    { error: 'invalid_token', error_description: description },
    { 'WWW-Authenticate': bearerChallenge({ error: 'invalid_token' }) },
  );
}

export function createRegistrationController(
  config: Config,
  accessTokens: AccessTokens,
  clientRemoved: clientsService.ClientRemovedHook,
  keySets: clientsService.ClientKeySets,
  clock: Clock,
) {
  const { mode, openCap, unusedHours } = config.registration;
  // Clients registered without a token that were never used go, swept while registrations come in.
  const sweep = throttled(60_000, async (now) => {
    await clientsService.sweepUnused(now, clientRemoved);
  });

  const registrationToken = (req: Request): string => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw invalidToken('Send the registration access token as Authorization: Bearer <token>');
    return token;
  };

  return {
    async register(req: Request, res: Response): Promise<void> {
      if (mode === 'closed') {
        throw new AppError(403, { error: 'access_denied', error_description: 'Dynamic registration is closed here: ask the operator' });
      }
      const context = clientsService.jwtContext(config, keySets);
      const now = clock.now();
      // REGISTRATION=open: a request without credentials registers a public client, kept while it gets used.
      if (mode === 'open' && req.headers.authorization === undefined) {
        sweep(new Date(now));
        const open = { unusedUntil: new Date(now + unusedHours * 3600_000), cap: openCap, now: new Date(now) };
        noStore(res)
          .status(201)
          .json(await registrationService.register(undefined, req.body, context, open));
        return;
      }
      const token = bearerToken(req.headers.authorization);
      const claims = token ? await accessTokens.verifyCurrent(token) : null;
      if (!claims) {
        throw invalidToken('Send an access token from POST /auth as Authorization: Bearer <token>');
      }
      noStore(res)
        .status(201)
        .json(await registrationService.register(claims.userId, req.body, context));
    },

    async read(req: Request<{ clientId: string }>, res: Response): Promise<void> {
      const metadata = await registrationService.read(req.params.clientId, registrationToken(req), config.publicUrl);
      if (!metadata) throw invalidToken('The registration access token does not manage this client');
      noStore(res).json(metadata);
    },

    async remove(req: Request<{ clientId: string }>, res: Response): Promise<void> {
      if (!(await registrationService.remove(req.params.clientId, registrationToken(req), clientRemoved))) {
        throw invalidToken('The registration access token does not manage this client');
      }
      res.status(204).end();
    },
  };
}
