// The response: its type (OAuth 2.0 Multiple Response Types; the order of its values does not
// matter), how it travels (response_mode: tokens never in the query, not even signed, JARM §2.3.1;
// form_post suits every type; `jwt` signs the answer in the carrier the type would get), the state
// it carries back, and the grant the type needs.
import { isMessageSigning } from '../../clients/fapi.service';
import { allowsResponseType, RESPONSE_MODES, RESPONSE_TYPES, STATE_VALUE, type ResponseMode, type ResponseType } from '../../protocol';
import { invalid, type Check } from './check';

/** Settles the type, mode and state the answer needs (an error too is answered by them); refuses nothing. */
export const settleResponse: Check = (review) => {
  const { parameters, client } = review;
  const requestedType = parameters.response_type;
  const spelled = requestedType?.split(' ').filter(Boolean).sort().join(' ');
  const known = RESPONSE_TYPES.find((type) => type === spelled);
  const responseType: ResponseType = known ?? 'code';
  // FAPI 2.0 Message Signing §5.4: its clients' answers are signed (JARM), `jwt` when they name no mode.
  const requestedMode = parameters.response_mode ?? (isMessageSigning(client!) ? 'jwt' : undefined);
  const signedMode = requestedMode === 'jwt' || requestedMode?.endsWith('.jwt') === true;
  const wantedCarrier = requestedMode?.replace(/\.?jwt$/, '');
  const carrier =
    wantedCarrier === 'form_post' ? 'form_post' : responseType !== 'code' || wantedCarrier === 'fragment' ? 'fragment' : 'query';
  const responseMode: ResponseMode = signedMode ? `${carrier}.jwt` : carrier;
  const state = parameters.state !== undefined && STATE_VALUE.test(parameters.state) ? parameters.state : undefined;
  Object.assign(review.request, { responseType, responseMode, state });
  review.response = { requestedType, known: known !== undefined, requestedMode, signedMode };
};

export const checkState: Check = (review) =>
  review.parameters.state !== undefined && review.request.state === undefined
    ? invalid('state must be printable ASCII, at most 1024 characters')
    : undefined;

export const checkResponseType: Check = (review) => {
  if (!review.response!.requestedType) return invalid('Missing parameter: response_type');
  if (!review.response!.known)
    return { error: 'unsupported_response_type', description: `response_type must be one of ${RESPONSE_TYPES.join(', ')}` };
  return undefined;
};

export const checkResponseMode: Check = (review) => {
  const { requestedMode, signedMode } = review.response!;
  if (requestedMode !== undefined && requestedMode !== 'jwt' && requestedMode !== review.request.responseMode)
    return invalid(`response_mode must be one of ${RESPONSE_MODES.join(', ')} (never query for tokens)`);
  if (isMessageSigning(review.client!) && !signedMode)
    return invalid('a FAPI 2.0 Message Signing client gets signed responses: response_mode jwt (JARM)');
  return undefined;
};

/** The client holds the grant the response type needs (authorization_code, implicit). */
export const checkGrantForResponseType: Check = (review) => {
  const responseType = review.request.responseType!;
  if (!allowsResponseType(review.client!.grants, responseType))
    return { error: 'unauthorized_client', description: `This client may not use response_type=${responseType}` };
  return undefined;
};
