import argon2 from 'argon2';
import { TooManyRequestsError } from '../../src/common/rate-limit';
import {
  configurePasswordHashing,
  HASHING_CONCURRENCY,
  HASHING_QUEUE,
  hashPassword,
  needsRehash,
  OWASP_MINIMUM,
  verifyPassword,
} from '../../src/common/passwords';

beforeEach(() => configurePasswordHashing(OWASP_MINIMUM));

describe('password hashing', () => {
  it('uses argon2id with the OWASP minimum by default', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await verifyPassword(hash, 'correct horse')).toBe(true);
    expect(await verifyPassword(hash, 'wrong horse')).toBe(false);
    expect(needsRehash(hash)).toBe(false);
  });

  it('takes configured parameters, and then asks for older hashes to be rehashed', async () => {
    const owaspHash = await hashPassword('correct horse');
    configurePasswordHashing({ memoryKib: 8192, timeCost: 3, parallelism: 1 });
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=8192,p=1,t=3\$/);
    expect(needsRehash(owaspHash)).toBe(true);
    expect(needsRehash(hash)).toBe(false);
    // Old hashes keep verifying until they are upgraded.
    expect(await verifyPassword(owaspHash, 'correct horse')).toBe(true);
  });

  it('asks to rehash the package defaults (64 MiB, t=3, p=4)', async () => {
    expect(needsRehash(await argon2.hash('x', { type: argon2.argon2id }))).toBe(true);
  });

  it('treats a missing or corrupt stored hash as a failed verification, never an error', async () => {
    expect(await verifyPassword(undefined, 'anything')).toBe(false);
    expect(await verifyPassword('$argon2id$not-a-hash', 'anything')).toBe(false);
    expect(needsRehash('not-a-hash')).toBe(true);
  });

  it('leaves at least one core free when many hashes are asked at once, and answers them all', async () => {
    expect(HASHING_CONCURRENCY).toBeGreaterThanOrEqual(1);
    const hashes = await Promise.all(Array.from({ length: 6 }, (_, i) => hashPassword(`pw-${i}`)));
    const results = await Promise.all(hashes.map((hash, i) => verifyPassword(hash, `pw-${i}`)));
    expect(results).toEqual([true, true, true, true, true, true]);
  });

  it('serves requesters in turn, and refuses at once a requester with too many waiting', async () => {
    const hash = await hashPassword('pw');
    await verifyPassword(undefined, 'pw'); // the throwaway hash for unknown accounts is made once, first
    const finished: string[] = [];
    const flooder = '198.51.100.1';
    const flood = Array.from({ length: HASHING_CONCURRENCY + HASHING_QUEUE.perRequester }, () =>
      verifyPassword(hash, 'guess', flooder).then(() => finished.push('flood')),
    );
    await expect(verifyPassword(hash, 'guess', flooder)).rejects.toBeInstanceOf(TooManyRequestsError);
    const other = verifyPassword(hash, 'pw', '192.0.2.1').then((verified) => finished.push(verified ? 'other' : 'wrong'));
    await Promise.all([...flood, other]);
    // Behind the checks already running, the other person waits for one of the flood's turns at most.
    expect(finished.indexOf('other')).toBeGreaterThanOrEqual(0);
    expect(finished.indexOf('other')).toBeLessThanOrEqual(HASHING_CONCURRENCY + 1);
  });
});
