// Recovery codes: ten single-use codes shown once when made, stored only as hashes; one replaces
// the second factor at sign-in. Making new ones ends the old ones.
import { randomBytes } from 'node:crypto';
import { sha256 } from '../common/crypto';
import * as codesDao from './recovery-codes.dao';
import { FACTOR_RULES } from './factors.rules';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const { count, length } = FACTOR_RULES.recoveryCodes;

/** Typed as shown (`abcde-fghij`), in any case, with or without the hyphen and spaces. */
const normalize = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');
const idOf = (userId: string, code: string) => sha256(`${userId}:${normalize(code)}`);

function newCode(): string {
  const bytes = randomBytes(length);
  const chars = [...bytes].map((byte) => ALPHABET[byte % ALPHABET.length]).join('');
  return `${chars.slice(0, length / 2)}-${chars.slice(length / 2)}`;
}

/** New codes for the account (the old ones end); returned this once. */
export async function regenerate(userId: string): Promise<string[]> {
  const codes = Array.from({ length: count }, newCode);
  await codesDao.replaceAll(
    userId,
    codes.map((code) => idOf(userId, code)),
  );
  return codes;
}

/** Uses the code up: true for the one request (of any number at once) that did. */
export async function use(userId: string, code: string): Promise<boolean> {
  if (normalize(code).length !== length) return false;
  return codesDao.take(idOf(userId, code));
}

export const remaining = (userId: string): Promise<number> => codesDao.countFor(userId);

export const removeAll = (userId: string): Promise<void> => codesDao.deleteFor(userId);
