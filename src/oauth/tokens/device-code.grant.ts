// grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4): the device polls with its
// device code until the person decides on the verification page; then the code is spent and the
// device gets the person's tokens.
import * as deviceService from '../device/device.service';
import { DEVICE_CODE_GRANT } from '../protocol';
import { issue, withIdToken } from './issuing.service';
import { personOf, required, type GrantHandler } from './token-request';

export const deviceCodeGrant: GrantHandler = async ({ client, parameters, lifetimes, idTokens, proof }) => {
  const { userId, authTime, amr, scope } = await deviceService.redeem(required(parameters, 'device_code'), client._id);
  const person = await personOf(userId);
  const issued = await issue(
    { client, person, scope, grantType: DEVICE_CODE_GRANT, refreshToken: true, authTime, amr, jkt: proof?.jkt },
    lifetimes,
  );
  return withIdToken(idTokens, issued, client, { authTime, amr });
};
