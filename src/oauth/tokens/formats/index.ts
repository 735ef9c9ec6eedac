// The access-token formats, as strategies: a resource's setting picks the one a token is minted in
// (opaque when no resource is named), and a token that comes back is read by the first format it
// belongs to (a JWT's header tells; anything else is opaque and its record decides).
import type { Config } from '../../../config';
import type { KeyRing } from '../../oidc/signing-keys.service';
import type { ResourceFormat } from '../../protocol';
import type { AccessGrant, AccessTokenFormat, SelfContainedToken, TokenRecords } from './format';
import { createJwtFormat } from './jwt';
import { opaqueFormat } from './opaque';

export interface AccessTokenFormats {
  /** The format a token is minted in: the resource's, opaque without one. */
  of(format: ResourceFormat | undefined): AccessTokenFormat;
  /** The grant a token carries for `audience`, live as far as its format and record go; null otherwise. */
  grant(token: string, audience: string, records: TokenRecords): Promise<AccessGrant | null>;
  /** A verified token that no record stands for (a client's own JWT); null otherwise. */
  unrecorded(token: string): Promise<SelfContainedToken | null>;
}

export function createAccessTokenFormats(keys: KeyRing, config: Pick<Config, 'publicUrl'>): AccessTokenFormats {
  const byName: Record<ResourceFormat, AccessTokenFormat> = { jwt: createJwtFormat(keys, config), opaque: opaqueFormat };
  // Opaque last: any string may be one.
  const readingOrder = [byName.jwt, byName.opaque];
  return {
    of: (format) => byName[format ?? 'opaque'],
    async grant(token, audience, records) {
      for (const format of readingOrder) {
        const grant = await format.grant(token, audience, records);
        if (grant !== undefined) return grant;
      }
      return null;
    },
    async unrecorded(token) {
      for (const format of readingOrder) {
        const found = await format.unrecorded(token);
        if (found) return found;
      }
      return null;
    },
  };
}

export type { AccessGrant, AccessTokenClaims, AccessTokenFormat, MintedAccessToken, SelfContainedToken, TokenRecords } from './format';
