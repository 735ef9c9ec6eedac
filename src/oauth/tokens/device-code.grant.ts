// grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4): the device polls with its
// device code until the person decides on the verification page; then the code is spent and the
// device gets the person's tokens. The person approved this server's scopes, so the only resource
// the token may name is this server's own (RFC 8707's invalid_target otherwise, before anything is spent).
import * as deviceService from '../device/device.service';
import { OAuthErrorResponse } from '../oauth.errors';
import { DEVICE_CODE_GRANT } from '../protocol';
import { withIdToken } from './issuing.service';
import { personOf, required, resourceOf, type GrantHandler } from './token-request';

export const deviceCodeGrant: GrantHandler = async (request) => {
  const { client, parameters, lifetimes, idTokens, proof, issue } = request;
  const resource = await resourceOf(request);
  if (resource && !resource.own) throw new OAuthErrorResponse('invalid_target', 'a device authorization may be for this server only');
  const { userId, authTime, amr, scope } = await deviceService.redeem(required(parameters, 'device_code'), client._id);
  const person = await personOf(userId);
  const issued = await issue(
    { client, person, scope, grantType: DEVICE_CODE_GRANT, refreshToken: true, authTime, amr, jkt: proof?.jkt, resource },
    lifetimes,
  );
  return withIdToken(idTokens, issued, client, { authTime, amr });
};
