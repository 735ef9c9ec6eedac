// The FAPI 2.0 Security Profile's rules for an authorization request of its clients (§5.3.2.2): PKCE
// with S256, and the redirect_uri named in every request. (Pushing is required of them by their
// registration: require_pushed_authorization_requests.)
import { isFapi } from '../../clients/fapi.service';
import { invalid, type Check } from './check';

export const fapiRules: Check = (review) => {
  if (!isFapi(review.client!)) return;
  if (review.request.codeChallengeMethod !== 'S256')
    return invalid('FAPI 2.0 clients must send a code_challenge with code_challenge_method=S256');
  if (review.parameters.redirect_uri === undefined) return invalid('FAPI 2.0 clients must send redirect_uri');
  return undefined;
};
