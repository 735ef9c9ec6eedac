// How the person is to be asked (OIDC Core §3.1.2.1): prompt, max_age, login_hint, acr_values, and
// the claims parameter (§5.5); and RFC 9449 §10's dpop_jkt, the key the code will be bound to.
import * as claimsService from '../../oidc/claims.service';
import { JWK_THUMBPRINT, PROMPTS } from '../../protocol';
import { invalid, type Check } from './check';

export const checkPrompt: Check = (review) => {
  const { parameters } = review;
  const prompt = parameters.prompt?.split(' ').filter(Boolean) ?? [];
  if (!prompt.every((value) => (PROMPTS as readonly string[]).includes(value)) || (prompt.includes('none') && prompt.length > 1))
    return invalid('prompt must be none, or any of login, consent and select_account');
  Object.assign(review.request, { prompt, loginHint: parameters.login_hint, acrValues: parameters.acr_values?.split(' ').filter(Boolean) });
  return undefined;
};

export const checkClaims: Check = (review) => {
  if (review.parameters.claims === undefined) return;
  const claims = claimsService.parseClaimsParameter(review.parameters.claims);
  if (typeof claims === 'string') return invalid(claims);
  review.request.claims = claims;
  return undefined;
};

export const checkDpopJkt: Check = (review) => {
  const jkt = review.parameters.dpop_jkt;
  if (jkt !== undefined && !JWK_THUMBPRINT.test(jkt)) return invalid('dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters)');
  review.request.dpopJkt = jkt;
  return undefined;
};

export const checkMaxAge: Check = (review) => {
  const raw = review.parameters.max_age;
  if (raw === undefined) return;
  const maxAge = Number(raw);
  if (!(Number.isSafeInteger(maxAge) && maxAge >= 0)) return invalid('max_age must be a number of seconds');
  review.request.maxAge = maxAge;
  return undefined;
};
