// The device flow (RFC 8628 §3.1): only a client registered for its grant may start one.
import { DEVICE_CODE_GRANT } from '../../protocol';
import type { Check } from './check';

export const checkDeviceGrant: Check = (review) =>
  review.client!.grants.includes(DEVICE_CODE_GRANT)
    ? undefined
    : { error: 'unauthorized_client', description: 'This client may not use the device flow' };
