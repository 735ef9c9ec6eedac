// The pushed authorization request endpoint (RFC 9126 §2): a client authenticates as at the token
// endpoint, sends the authorization request's parameters (or a request object), and gets a
// request_uri for its next authorization request. The request is checked now, by the authorization
// endpoint's own rules, so an error is answered here in JSON and never reaches the browser.
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import { clientAddress } from '../../common/rate-limit';
import type { Clock } from '../../common/clock';
import * as clientsService from '../clients/clients.service';
import type { ClientDocument } from '../clients/clients.model';
import { dpopAlgorithmsFor } from '../clients/fapi.service';
import { invalidRequest, OAuthErrorResponse } from '../oauth.errors';
import { collectParameters } from '../oauth.parameters';
import type { AuthorizeService } from './authorize.service';
import type { DpopProofs } from '../dpop/dpop.service';
import * as pushedRequests from './pushed-requests.store';
import { passedOrThrown } from './review';

/** Parameters that authenticate the client; they are not part of the request kept. */
const CLIENT_AUTHENTICATION = ['client_secret', 'client_assertion', 'client_assertion_type'];

export function createPushedRequestsController(
  authorize: AuthorizeService,
  clock: Clock,
  dpop: DpopProofs,
  authenticate: clientsService.ClientAuthentication,
) {
  /** The request's DPoP proof, checked; a refused one (DpopProofError) is the OAuth presenter's to word, with the nonce. */
  async function proofOf(req: Request, res: Response, client: ClientDocument) {
    const nonce = dpop.nonce();
    if (nonce !== undefined && req.headers.dpop !== undefined) res.set('DPoP-Nonce', nonce);
    return dpop.check(req, undefined, dpopAlgorithmsFor(client));
  }

  return {
    async push(req: Request, res: Response): Promise<void> {
      const parameters = collectParameters(req, ['body']);
      const at = { path: req.path, address: clientAddress(req) };
      const client = await authenticate(clientsService.credentialsOf(parameters, req.headers.authorization), at);
      if (parameters.request_uri !== undefined) throw invalidRequest('request_uri cannot be pushed (RFC 9126 §2.1)');
      const request = Object.fromEntries(Object.entries(parameters).filter(([name]) => !CLIENT_AUTHENTICATION.includes(name)));
      // RFC 9449 §10.1: a DPoP proof with the push binds the code to its key, as dpop_jkt would.
      const proof = await proofOf(req, res, client);
      if (proof) {
        if (request.dpop_jkt !== undefined && request.dpop_jkt !== proof.jkt)
          throw new OAuthErrorResponse('invalid_dpop_proof', "dpop_jkt is not the thumbprint of the DPoP proof's key");
        request.dpop_jkt = proof.jkt;
      }
      const reviewed = passedOrThrown(await authorize.reviewPushed({ ...request, client_id: client._id }, client, at.address));
      // RFC 9449 §10.1: a dpop_jkt inside a request object is held to the push's proof as one in the form is.
      if (proof && reviewed.request.dpopJkt !== proof.jkt)
        throw new OAuthErrorResponse('invalid_dpop_proof', "dpop_jkt is not the thumbprint of the DPoP proof's key");
      const pushed = await pushedRequests.push(client._id, reviewed.parameters, new Date(clock.now()));
      noStore(res).status(201).json({ request_uri: pushed.requestUri, expires_in: pushed.expiresIn });
    },
  };
}
