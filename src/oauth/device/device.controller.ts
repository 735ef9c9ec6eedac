// The device authorization endpoint (RFC 8628 §3.1-3.2) and the verification page (§3.3): a signed-in
// person types the user code, sees the usual consent page, and decides.
import type { Stores } from '../../stores';
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import { clientAddress, limitRule } from '../../common/rate-limit';
import { bodyField } from '../../common/request-body';
import { readQuery } from '../../common/request-fields';
import { VERIFICATION_QUERY } from './device.fields';
import type { Config } from '../../config';
import { sessionSignIn, signedInPerson } from '../../session/session.middleware';
import { displayName } from '../../users/users.types';
import type { Csrf } from '../../web/csrf';
import { consentPage } from '../consent.page';
import { MAX_TYPED_USER_CODE_LENGTH } from '../protocol';
import { deviceRequestScope } from '../authorize/authorize.service';
import type { Clock } from '../../common/clock';
import * as clientsService from '../clients/clients.service';
import * as grantsService from '../grants/grants.service';
import { collectParameters } from '../oauth.parameters';
import { deviceOutcomePage, verificationPage } from './device.page';
import * as deviceService from './device.service';
import { HTML_CONTENT_TYPE as HTML } from '../../web/html';

const WRONG_CODE = 'That code is wrong, has expired or was already used. Check your device and try again.';

export function createDeviceController(
  config: Config,
  csrf: Csrf,
  stores: Pick<Stores, 'clients' | 'clientKeySets' | 'consents' | 'resources'>,
  clock: Clock,
) {
  // RATE_LIMITS: counted once the client is known (clients.service.ts ClientBudgets).
  const authenticate = clientsService.createClientAuthentication(config, stores, {
    perAddress: limitRule('device-authorization:address', config.limits.deviceAuthorizationPerAddress),
    perClient: limitRule('device-authorization:client', config.limits.deviceAuthorizationPerClient),
  });
  const verificationUri = `${config.publicUrl}/device`;

  return {
    async authorizeDevice(req: Request, res: Response): Promise<void> {
      const parameters = collectParameters(req, ['body']);
      const client = await authenticate(clientsService.credentialsOf(parameters, req.headers.authorization), {
        path: req.path,
        address: clientAddress(req),
      });
      const scope = await deviceRequestScope(parameters, client, clientAddress(req), { config, stores, clock });
      const started = await deviceService.start(client._id, scope, config.oauth.devicePollInterval);
      noStore(res).json({
        device_code: started.deviceCode,
        user_code: started.userCode,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(started.userCode)}`,
        expires_in: started.expiresIn,
        interval: started.interval,
      });
    },

    async showVerification(req: Request, res: Response): Promise<void> {
      const typed = readQuery(VERIFICATION_QUERY, req).user_code;
      noStore(res)
        .type(HTML)
        .send(verificationPage({ csrfToken: csrf.token(req, res), userCode: typed }));
    },

    async verify(req: Request, res: Response): Promise<void> {
      const typed = bodyField(req, 'user_code');
      const user = signedInPerson(res);
      const authorization =
        typeof typed === 'string' && typed.length <= MAX_TYPED_USER_CODE_LENGTH ? await deviceService.findPending(typed) : null;
      const client = authorization && (await stores.clients.find(authorization.clientId));
      if (!authorization || !client || typeof typed !== 'string') {
        noStore(res)
          .status(400)
          .type(HTML)
          .send(verificationPage({ csrfToken: csrf.token(req, res), error: WRONG_CODE }));
        return;
      }
      noStore(res)
        .type(HTML)
        .send(
          consentPage({
            action: '/device/decision',
            csrfToken: csrf.token(req, res),
            personName: displayName(user),
            switchAccount: '/login?prompt=login&return_to=%2Fdevice',
            clientName: client.name,
            clientWebsite: client.website,
            clientPages: client.metadata,
            scopes: authorization.scope,
            fields: { user_code: typed },
            destination: 'device',
          }),
        );
    },

    async decide(req: Request, res: Response): Promise<void> {
      const user = signedInPerson(res);
      const typed = bodyField(req, 'user_code');
      const decision = bodyField(req, 'decision');
      const authorization =
        typeof typed === 'string' && typed.length <= MAX_TYPED_USER_CODE_LENGTH ? await deviceService.findPending(typed) : null;
      const approved = decision === 'approve';
      if (
        !authorization ||
        (!approved && decision !== 'deny') ||
        !(await deviceService.decide(authorization, approved, user._id, sessionSignIn(req)))
      ) {
        noStore(res)
          .status(400)
          .type(HTML)
          .send(verificationPage({ csrfToken: csrf.token(req, res), error: WRONG_CODE }));
        return;
      }
      if (approved) await grantsService.remember(stores.consents, user._id, authorization.clientId, authorization.scope);
      noStore(res).type(HTML).send(deviceOutcomePage(approved));
    },
  };
}
