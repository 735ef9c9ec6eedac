// The only importer of the token, code and spent-marker models; returns plain objects.
import { trusted } from 'mongoose';
import { sameText } from '../../common/cookies';
import { changeSignal } from '../../db/change-signals';
import { isDuplicateKeyError } from '../../db/duplicate-key';
import { insertBatches } from '../../db/insert-batches';
import {
  CodeModel,
  RevokedJwtModel,
  SpentModel,
  TokenModel,
  type CodeDocument,
  type SpentDocument,
  type TokenDocument,
} from './tokens.model';

// sanitizeFilter is on globally; trusted() marks the operators written here, never client input.
const before = (now: Date) => trusted({ $lte: now });

/** Raised after every deletion of live tokens, for caches of token lookups on every instance. */
export const tokensRevoked = changeSignal('oauth-tokens');

/**
 * The busiest write: tokens issued at the same time go in one insert (db/insert-batches.ts), straight
 * to the driver. The record is built in code from typed values, so Mongoose's document machinery
 * adds nothing; absent fields are left out rather than stored as null.
 */
export const insertToken: (token: TokenDocument) => Promise<void> = insertBatches((tokens) =>
  TokenModel.collection.insertMany(
    tokens.map((token) => Object.fromEntries(Object.entries(token).filter(([, value]) => value !== undefined))),
    { ordered: false },
  ),
);

export function findTokenByAccessHash(hash: string): Promise<TokenDocument | null> {
  return TokenModel.findById(hash).lean<TokenDocument>().exec();
}

/**
 * The record a refresh token belongs to: by the record id the token carries (issuing.service.ts),
 * its hash then compared; a refresh token issued before they carried one, by its hash (a read of the
 * whole collection on FerretDB, until the last of those expires).
 */
export async function findTokenByRefresh(refreshToken: string, hash: string): Promise<TokenDocument | null> {
  const dot = refreshToken.indexOf('.');
  if (dot === -1) return TokenModel.findOne({ refreshTokenHash: hash }).lean<TokenDocument>().exec();
  const token = await TokenModel.findById(refreshToken.slice(0, dot)).lean<TokenDocument>().exec();
  return token?.refreshTokenHash !== undefined && sameText(token.refreshTokenHash, hash) ? token : null;
}

/** After rotation the pair's access token lives on until it expires; its refresh token is gone. */
export async function dropRefreshToken(accessHash: string): Promise<void> {
  await TokenModel.updateOne({ _id: accessHash }, { $unset: { refreshTokenHash: 1, refreshTokenExpiresAt: 1 } }).exec();
}

export async function deleteToken(accessHash: string): Promise<void> {
  await TokenModel.deleteOne({ _id: accessHash }).exec();
  await tokensRevoked.raise();
}

/** Revokes every token of a family; a family with none left (a made-up code, say) raises no signal. */
export async function deleteFamily(familyId: string): Promise<void> {
  const { deletedCount } = await TokenModel.deleteMany({ familyId }).exec();
  if (deletedCount > 0) await tokensRevoked.raise();
}

/** Every token and unused code issued to a client. */
export async function deleteForClient(clientId: string): Promise<void> {
  await Promise.all([TokenModel.deleteMany({ clientId }).exec(), CodeModel.deleteMany({ clientId }).exec()]);
  await tokensRevoked.raise();
}

/** Every token and unused code of a user for one client. */
export async function deleteForUserAndClient(userId: string, clientId: string): Promise<void> {
  await Promise.all([TokenModel.deleteMany({ userId, clientId }).exec(), CodeModel.deleteMany({ userId, clientId }).exec()]);
  await tokensRevoked.raise();
}

/** Every token and unused code of a user. */
export async function deleteForUser(userId: string): Promise<void> {
  await Promise.all([TokenModel.deleteMany({ userId }).exec(), CodeModel.deleteMany({ userId }).exec()]);
  await tokensRevoked.raise();
}

export async function insertCode(code: CodeDocument): Promise<void> {
  await CodeModel.create(code);
}

export function findCode(hash: string): Promise<CodeDocument | null> {
  return CodeModel.findById(hash).lean<CodeDocument>().exec();
}

/** Records a single use (a code's, a refresh token's); false when it was already used (even by a concurrent request). */
export async function markSpent(hash: string, familyId: string, expiresAt: Date, graceUntil?: Date): Promise<boolean> {
  try {
    await SpentModel.create({ _id: hash, familyId, expiresAt, graceUntil });
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

export function findSpent(hash: string): Promise<SpentDocument | null> {
  return SpentModel.findById(hash).lean<SpentDocument>().exec();
}

/** The newest token of a family that still has a refresh token: what a graceful replay continues. */
export function newestRefreshable(familyId: string): Promise<TokenDocument | null> {
  return TokenModel.findOne({ familyId, refreshTokenHash: trusted({ $exists: true }) })
    .sort({ issuedAt: -1 })
    .lean<TokenDocument>()
    .exec();
}

export async function deleteExpired(now: Date): Promise<void> {
  await Promise.all([
    CodeModel.deleteMany({ expiresAt: before(now) }).exec(),
    SpentModel.deleteMany({ expiresAt: before(now) }).exec(),
    RevokedJwtModel.deleteMany({ expiresAt: before(now) }).exec(),
    // A token goes when both its access token and any refresh token have expired.
    TokenModel.deleteMany({
      accessTokenExpiresAt: before(now),
      $or: [{ refreshTokenExpiresAt: trusted({ $exists: false }) }, { refreshTokenExpiresAt: before(now) }],
    }).exec(),
  ]);
}

/** Records a revoked JWT access token until it expires; revoking it twice is revoking it once. */
export async function revokeJwt(jti: string, expiresAt: Date): Promise<void> {
  try {
    await RevokedJwtModel.collection.insertOne({ _id: jti as never, expiresAt });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  await tokensRevoked.raise();
}

export async function isJwtRevoked(jti: string): Promise<boolean> {
  return (await RevokedJwtModel.exists({ _id: jti }).exec()) !== null;
}
