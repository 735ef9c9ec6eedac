// The checks of each entry point, in order (RFC 6749 §4.1.2.1's: what may be refused only on a page
// first, then what goes back to the client). The authorization endpoint (and the same request again
// after sign-in or at the consent form) opens pushed requests; PAR is what pushes them; the device
// flow asks for a scope and nothing else.
import type { Check } from './check';
import { checkClient } from './client';
import { checkDeviceGrant } from './device';
import { fapiRules } from './fapi';
import { checkPkce, publicClientPkce } from './pkce';
import { checkClaims, checkDpopJkt, checkMaxAge, checkPrompt } from './prompt';
import { knownPushedRequest, openPushedRequest, requirePushed } from './pushed-request';
import { checkRedirectUri } from './redirect-uri';
import { openRequestObject, readableRequestObject, requireSignedObject } from './request-object';
import { checkGrantForResponseType, checkResponseMode, checkResponseType, checkState, settleResponse } from './response';
import { checkNonce, checkResource, checkScope } from './scope';

/** What every request is held to once the client, its redirect URI and its response are known. */
const REQUEST_CHECKS: readonly Check[] = [
  checkState,
  checkResponseType,
  checkResponseMode,
  checkGrantForResponseType,
  checkResource,
  checkScope,
  checkNonce,
  checkPrompt,
  checkClaims,
  checkDpopJkt,
  checkMaxAge,
  checkPkce,
  publicClientPkce,
  fapiRules,
];

/** GET and POST /oauth/authorize, and the same request again after sign-in or at the consent form. */
export const AUTHORIZE_CHECKS: readonly Check[] = [
  checkClient,
  openPushedRequest,
  openRequestObject,
  checkRedirectUri,
  settleResponse,
  readableRequestObject,
  knownPushedRequest,
  requirePushed,
  requireSignedObject,
  ...REQUEST_CHECKS,
];

/** POST /oauth/par: the same request, checked as it is pushed (RFC 9126 §2.1) by the client that authenticated. */
export const PUSH_CHECKS: readonly Check[] = [
  openRequestObject,
  checkRedirectUri,
  settleResponse,
  readableRequestObject,
  requireSignedObject,
  ...REQUEST_CHECKS,
];

/** POST /oauth/device_authorization (RFC 8628 §3.1), for the client that authenticated: the grant and the scope. */
export const DEVICE_CHECKS: readonly Check[] = [checkDeviceGrant, checkScope];
