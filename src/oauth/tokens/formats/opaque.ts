// Opaque access tokens: 256 random bits, meaningful only through their record (by hash).
import { randomToken } from '../../../common/crypto';
import type { AccessTokenFormat } from './format';

export const opaqueFormat: AccessTokenFormat = {
  async mint(claims, now) {
    return { token: randomToken(), expiresAt: new Date(now.getTime() + claims.lifetimeSeconds * 1000), recorded: true };
  },

  /** Any string may be one: the record decides (a token for another resource is not this one's). */
  async grant(token, audience, records) {
    const doc = await records.live(token);
    if (!doc || (doc.resource !== undefined && doc.resource !== audience)) return null;
    const { accessScope, scope, clientId, userId, jkt, claims, issuedAt } = doc;
    return { scope: accessScope ?? scope, clientId, userId, jkt, claims, issuedAt };
  },

  async unrecorded() {
    return null;
  },
};
