// Request objects (OIDC Core §6, RFC 9101), by value or fetched from a registered request_uri: read
// before anything else of the request, the redirect URI included (RFC 9101 §6.3: with several
// registered, the object names it). One that cannot be read is told once the redirect URI is known.
import * as clientsService from '../../clients/clients.service';
import { requiresSignedRequestObject } from '../../clients/fapi.service';
import { applyRequestObject } from '../request-object';
import { fetchRequestObject } from '../request-uri';
import { invalid, type Check, type CheckFailure } from './check';

export const openRequestObject: Check = async (review, { config, stores }) => {
  const { parameters } = review;
  if (review.pushedUri !== undefined || review.pushedUnknown !== undefined) return;
  if (parameters.request_uri === undefined && parameters.request === undefined) return;
  const opened = await (async (): Promise<CheckFailure | Awaited<ReturnType<typeof applyRequestObject>>> => {
    if (parameters.request_uri === undefined)
      return applyRequestObject(review.client!, parameters, clientsService.jwtContext(config, stores.clientKeySets));
    if (parameters.request !== undefined) return invalid('send request or request_uri, not both');
    const fetched = await fetchRequestObject(config, review.client!, parameters.request_uri, review.address);
    if ('refused' in fetched) return { error: 'invalid_request_uri', description: fetched.refused };
    const { request_uri: _reference, ...rest } = parameters;
    return applyRequestObject(review.client!, { ...rest, request: fetched.jwt }, clientsService.jwtContext(config, stores.clientKeySets));
  })();
  if (typeof opened === 'string') review.objectRefused = { error: 'invalid_request_object', description: opened };
  else if ('error' in opened) review.objectRefused = opened;
  else {
    review.parameters = opened.parameters;
    review.signedObject = opened.signed;
  }
};

/** A request object that could not be read, told at the redirect URI. */
export const readableRequestObject: Check = (review) => review.objectRefused;

/** RFC 9101 §10.5 (and FAPI 2.0 Message Signing §5.3.1): checked where the request is made, at PAR for a pushed one. */
export const requireSignedObject: Check = (review) => {
  if (review.pushedUri !== undefined || review.signedObject || !requiresSignedRequestObject(review.client!)) return;
  return invalid('this client must send its authorization requests as signed request objects (require_signed_request_object)');
};
