// The only importer of the token, code and spent-marker models; returns plain objects.
import { mongo, trusted } from 'mongoose';
import { sameText } from '../../common/cookies';
import { changeSignal } from '../../db/change-signals';
import { isDuplicateKeyError } from '../../db/duplicate-key';
import { expiringCollection, readByIds } from '../../db/expiry-journal';
import { insertBatches } from '../../db/insert-batches';
import {
  CodeModel,
  familyRecordId,
  FamilyModel,
  RevokedJwtModel,
  SpentModel,
  TokenModel,
  type CodeDocument,
  type FamilyDocument,
  type SpentDocument,
  type TokenDocument,
} from './tokens.model';

// sanitizeFilter is on globally; trusted() marks the operators written here, never client input.
const before = (now: Date) => trusted({ $lte: now });

/** Raised after every deletion of live tokens, for caches of token lookups on every instance. */
export const tokensRevoked = changeSignal('oauth-tokens');

// Tokens, families, spent markers and revoked JWTs grow with the data and live long (a year by
// default): they are deleted through the expiry journal (db/expiry-journal.ts), never by a query.
const expiresAtOf = (record: Record<string, unknown>) => (record.expiresAt instanceof Date ? record.expiresAt : undefined);
const byExpiresAt = { fields: { expiresAt: 1 }, expiryOf: expiresAtOf } as const;
const FAMILY_ID = /^family:/;
const tokenJournal = expiringCollection({
  name: TokenModel.collection.collectionName,
  existing: {
    filter: { _id: { $not: FAMILY_ID } },
    fields: { accessTokenExpiresAt: 1, refreshTokenExpiresAt: 1 },
    expiryOf: (record) => expiryOf(record as unknown as TokenDocument),
  },
});
const spentJournal = expiringCollection({ name: SpentModel.collection.collectionName, existing: byExpiresAt });
const revokedJwtJournal = expiringCollection({ name: RevokedJwtModel.collection.collectionName, existing: byExpiresAt });
const familyJournal = expiringCollection({
  name: 'oauth_families',
  collection: FamilyModel.collection.collectionName,
  // A family is kept until its last token expires, which each refresh moves later.
  currentExpiry: async (ids) => {
    const found = await readByIds((id) => FamilyModel.findById(id, { until: 1 }).lean<FamilyDocument>().exec(), ids);
    return new Map(found.map((family) => [family._id, family.until]));
  },
  existing: { filter: { _id: FAMILY_ID }, fields: { until: 1 }, expiryOf: (record) => record.until as Date },
});

/** When a token record may go: once its access token and any refresh token have both expired. */
export const expiryOf = (token: Pick<TokenDocument, 'accessTokenExpiresAt' | 'refreshTokenExpiresAt'>): Date =>
  token.refreshTokenExpiresAt && token.refreshTokenExpiresAt > token.accessTokenExpiresAt
    ? token.refreshTokenExpiresAt
    : token.accessTokenExpiresAt;

const defined = (record: object) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

/**
 * The busiest write: tokens issued at the same time go in one insert (db/insert-batches.ts), straight
 * to the driver, each with its family's record when it starts one. The records are built in code from
 * typed values, so Mongoose's document machinery adds nothing; absent fields are left out rather than
 * stored as null.
 */
const insertRecords = insertBatches<(TokenDocument | FamilyDocument)[]>((batches) =>
  TokenModel.collection.insertMany(batches.flat().map(defined), { ordered: false }),
);

/** A token's record, and the record of the family it starts (a person's first token of an authorization). */
export async function insertToken(token: TokenDocument, startsFamily?: Omit<FamilyDocument, '_id'>): Promise<void> {
  const family = startsFamily && { _id: familyRecordId(token.familyId), ...startsFamily };
  await insertRecords(family ? [token, family] : [token]);
  tokenJournal.add(token._id, expiryOf(token));
  if (family) familyJournal.add(family._id, family.until);
}

export function findTokenByAccessHash(hash: string): Promise<TokenDocument | null> {
  return TokenModel.findById(hash).lean<TokenDocument>().exec();
}

/**
 * The record a refresh token belongs to: by the record id the token carries (issuing.service.ts),
 * its hash then compared. A refresh token without one (issued before they carried it) finds
 * nothing: looking it up by its hash would read the whole collection on FerretDB, for anyone who
 * sends a made-up token (docs/decisions.md, "Lookups by key").
 */
export async function findTokenByRefresh(refreshToken: string, hash: string): Promise<TokenDocument | null> {
  const dot = refreshToken.indexOf('.');
  if (dot <= 0) return null;
  const token = await TokenModel.findById(refreshToken.slice(0, dot)).lean<TokenDocument>().exec();
  return token?.refreshTokenHash !== undefined && sameText(token.refreshTokenHash, hash) ? token : null;
}

// ---- Families

export function findFamily(familyId: string): Promise<FamilyDocument | null> {
  return FamilyModel.findById(familyRecordId(familyId)).lean<FamilyDocument>().exec();
}

/**
 * A token joined the family: it may be the newest refreshable one, and outlive the family's last.
 * Written by `_id` alone; two at once in one family (a graceful replay beside a refresh) may leave
 * either as the newest, which is what the replay may continue.
 */
export async function joinFamily(
  family: FamilyDocument,
  token: Pick<TokenDocument, '_id' | 'refreshTokenHash' | 'accessTokenExpiresAt' | 'refreshTokenExpiresAt'>,
): Promise<void> {
  const until = expiryOf(token);
  const newest = token.refreshTokenHash !== undefined ? token._id : undefined;
  const later = until > family.until;
  if (!later && (newest === undefined || newest === family.newest)) return;
  await FamilyModel.updateOne(
    { _id: family._id },
    { $set: { ...(later ? { until } : {}), ...(newest !== undefined ? { newest } : {}) } },
  ).exec();
}

/** After rotation the pair's access token lives on until it expires; its refresh token is gone. */
export async function dropRefreshToken(accessHash: string): Promise<void> {
  await TokenModel.updateOne({ _id: accessHash }, { $unset: { refreshTokenHash: 1, refreshTokenExpiresAt: 1 } }).exec();
}

export async function deleteToken(accessHash: string): Promise<void> {
  await TokenModel.deleteOne({ _id: accessHash }).exec();
  await tokensRevoked.raise();
}

/**
 * Revokes every token of a family: its record goes, and with it the life of every token that names
 * it, on every instance (the signal empties their caches). A family that was not there raises nothing.
 */
export async function deleteFamily(familyId: string): Promise<void> {
  const { deletedCount } = await FamilyModel.deleteOne({ _id: familyRecordId(familyId) }).exec();
  if (deletedCount > 0) await tokensRevoked.raise();
}

/** Every unused code issued to a client. */
export async function deleteCodesForClient(clientId: string): Promise<void> {
  await CodeModel.deleteMany({ clientId }).exec();
}

/** Every unused code of a user for one client. */
export async function deleteCodesForUserAndClient(userId: string, clientId: string): Promise<void> {
  await CodeModel.deleteMany({ userId, clientId }).exec();
}

/** Every unused code of a user. */
export async function deleteCodesForUser(userId: string): Promise<void> {
  await CodeModel.deleteMany({ userId }).exec();
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
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
  spentJournal.add(hash, expiresAt);
  return true;
}

export function findSpent(hash: string): Promise<SpentDocument | null> {
  return SpentModel.findById(hash).lean<SpentDocument>().exec();
}

/** The newest token of a family that still has a refresh token: what a graceful replay continues. */
export async function newestRefreshable(family: FamilyDocument): Promise<TokenDocument | null> {
  const newest = family.newest ? await TokenModel.findById(family.newest).lean<TokenDocument>().exec() : null;
  return newest?.refreshTokenHash !== undefined && familyRecordId(newest.familyId) === family._id ? newest : null;
}

/**
 * Writes the family records of a person's tokens stored before tokens lived by their family (a
 * migration, src/migrations.ts): without one, such a token would be dead. One read of the tokens,
 * once; each family's record written by `_id`, its end the latest of its tokens'.
 */
export async function writeMissingFamilies(): Promise<number> {
  let written = 0;
  let batch: mongo.AnyBulkWriteOperation<FamilyDocument>[] = [];
  const flush = async () => {
    if (batch.length > 0) await FamilyModel.collection.bulkWrite(batch as never, { ordered: false });
    batch = [];
  };
  const tokens = TokenModel.collection.find({ userId: { $exists: true }, _id: { $not: FAMILY_ID } } as never, {
    projection: { familyId: 1, refreshTokenHash: 1, accessTokenExpiresAt: 1, refreshTokenExpiresAt: 1 },
    batchSize: 1000,
  });
  for await (const token of tokens as AsyncIterable<TokenDocument>) {
    const newest = token.refreshTokenHash !== undefined ? { $set: { newest: token._id } } : {};
    batch.push({
      updateOne: { filter: { _id: familyRecordId(token.familyId) }, update: { $max: { until: expiryOf(token) }, ...newest }, upsert: true },
    });
    written += 1;
    if (batch.length >= 1000) await flush();
  }
  await flush();
  return written;
}

/** Unused codes past their expiry: few (codes live minutes), swept by query. */
export async function deleteExpiredCodes(now: Date): Promise<void> {
  await CodeModel.deleteMany({ expiresAt: before(now) }).exec();
}

/** Records a revoked JWT access token until it expires; revoking it twice is revoking it once. */
export async function revokeJwt(jti: string, expiresAt: Date): Promise<void> {
  try {
    await RevokedJwtModel.collection.insertOne({ _id: jti as never, expiresAt });
    revokedJwtJournal.add(jti, expiresAt);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  await tokensRevoked.raise();
}

export async function isJwtRevoked(jti: string): Promise<boolean> {
  return (await RevokedJwtModel.exists({ _id: jti }).exec()) !== null;
}
