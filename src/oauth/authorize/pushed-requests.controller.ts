// The pushed authorization request endpoint (RFC 9126 §2): a client authenticates as at the token
// endpoint, sends the authorization request's parameters (or a request object), and gets a
// request_uri for its next authorization request. The request is checked now, by the authorization
// endpoint's own rules, so an error is answered here in JSON and never reaches the browser.
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import type { Clock } from '../../common/clock';
import type { Config } from '../../config';
import * as clientsService from '../clients/clients.service';
import { invalidRequest, OAuthErrorResponse } from '../oauth.errors';
import { collectParameters } from '../oauth.parameters';
import type { AuthorizeService } from './authorize.service';
import * as pushedRequests from './pushed-requests.store';

/** Parameters that authenticate the client; they are not part of the request kept. */
const CLIENT_AUTHENTICATION = ['client_secret', 'client_assertion', 'client_assertion_type'];

export function createPushedRequestsController(config: Config, authorize: AuthorizeService, clock: Clock) {
  return {
    async push(req: Request, res: Response): Promise<void> {
      const parameters = collectParameters(req, ['body']);
      const client = await clientsService.authenticateRequest(
        clientsService.credentialsOf(parameters, req.headers.authorization),
        clientsService.jwtContext(config, req.path),
      );
      if (parameters.request_uri !== undefined) throw invalidRequest('request_uri cannot be pushed (RFC 9126 §2.1)');
      const request = Object.fromEntries(Object.entries(parameters).filter(([name]) => !CLIENT_AUTHENTICATION.includes(name)));
      const reviewed = await authorize.review({ ...request, client_id: client._id }, true, { pushing: true });
      if (reviewed.kind === 'refusal') throw invalidRequest(`${reviewed.title}: ${reviewed.message}`);
      if (reviewed.kind !== 'consent') {
        const { error, error_description: description } = reviewed.error ?? { error: 'invalid_request' };
        throw new OAuthErrorResponse(error, description ?? 'The request was refused');
      }
      const pushed = await pushedRequests.push(client._id, reviewed.parameters, new Date(clock.now()));
      noStore(res).status(201).json({ request_uri: pushed.requestUri, expires_in: pushed.expiresIn });
    },
  };
}
