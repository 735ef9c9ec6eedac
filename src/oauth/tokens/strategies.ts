// The token strategies the app is built with, made once by the composition root: the access-token
// formats (formats/), the issuer that mints in them, and the lookups' cache. Sender constraints
// (Bearer, DPoP) are the guard's (bearer.middleware.ts).
import type { Config } from '../../config';
import type { KeyRing } from '../oidc/signing-keys.service';
import { createAccessTokenFormats, type AccessTokenFormats } from './formats';
import { createTokenIssuer, type TokenIssuer } from './issuing.service';
import { createAccessTokenCache, type AccessTokenCache } from './tokens.service';

export interface TokenStrategies {
  formats: AccessTokenFormats;
  issue: TokenIssuer;
  /** Access-token lookups for the APIs and introspection; off (CREDENTIAL_CACHE) only to measure the saving. */
  cache?: AccessTokenCache;
}

export function createTokenStrategies(keys: KeyRing, config: Pick<Config, 'publicUrl' | 'credentialCache'>): TokenStrategies {
  const formats = createAccessTokenFormats(keys, config);
  return { formats, issue: createTokenIssuer(formats), cache: config.credentialCache ? createAccessTokenCache() : undefined };
}
