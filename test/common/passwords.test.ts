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

/** A PHC string's type and parameters, whatever their order (argon2 0.44 writes m,t,p; 0.45 wrote m,p,t). */
function parametersOf(hash: string): Record<string, string> {
  const [, type, version, parameters] = hash.split('$');
  expect(version).toBe('v=19');
  return { type, ...Object.fromEntries(parameters.split(',').map((pair) => pair.split('='))) };
}

describe('password hashing', () => {
  it('uses argon2id with the OWASP minimum by default', async () => {
    const hash = await hashPassword('correct horse');
    expect(parametersOf(hash)).toEqual({ type: 'argon2id', m: '19456', t: '2', p: '1' });
    expect(await verifyPassword(hash, 'correct horse')).toBe(true);
    expect(await verifyPassword(hash, 'wrong horse')).toBe(false);
    expect(needsRehash(hash)).toBe(false);
  });

  it('takes configured parameters, and then asks for older hashes to be rehashed', async () => {
    const owaspHash = await hashPassword('correct horse');
    configurePasswordHashing({ memoryKib: 8192, timeCost: 3, parallelism: 1 });
    const hash = await hashPassword('correct horse');
    expect(parametersOf(hash)).toEqual({ type: 'argon2id', m: '8192', t: '3', p: '1' });
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

  it('serves requesters in turn, and refuses at once the surplus of a requester while another waits', async () => {
    const hash = await hashPassword('pw');
    await verifyPassword(undefined, 'pw'); // the throwaway hash for unknown accounts is made once, first
    const finished: string[] = [];
    const flooder = '198.51.100.1';
    // Someone else is waiting from the start: the flood may queue its share and no more.
    const running = Array.from({ length: HASHING_CONCURRENCY }, () => verifyPassword(hash, 'x', '203.0.113.7'));
    const other = verifyPassword(hash, 'pw', '192.0.2.1').then((verified) => finished.push(verified ? 'other' : 'wrong'));
    const flood = Array.from({ length: HASHING_QUEUE.perRequester }, () =>
      verifyPassword(hash, 'guess', flooder).then(() => finished.push('flood')),
    );
    await expect(verifyPassword(hash, 'guess', flooder)).rejects.toBeInstanceOf(TooManyRequestsError);
    await Promise.all([...running, ...flood, other]);
    // Behind the checks already running, the other person waits for one of the flood's turns at most.
    expect(finished.indexOf('other')).toBeGreaterThanOrEqual(0);
    expect(finished.indexOf('other')).toBeLessThanOrEqual(1);
  });

  it("queues a requester alone past its share (a backend's burst), and refuses its surplus once the queue is half full", async () => {
    configurePasswordHashing({ memoryKib: 256, timeCost: 1, parallelism: 1 });
    const hash = await hashPassword('pw');
    await verifyPassword(undefined, 'pw');
    const alone = '198.51.100.2';
    const half = HASHING_QUEUE.total / 2;
    // Every one of these beyond the running ones waits: half the queue, all taken, none refused.
    const burst = Array.from({ length: HASHING_CONCURRENCY + half }, () => verifyPassword(hash, 'pw', alone));
    await expect(verifyPassword(hash, 'pw', alone)).rejects.toBeInstanceOf(TooManyRequestsError);
    expect(await Promise.all(burst)).toEqual(burst.map(() => true));
  });

  it('lifts the per-requester share when rate limits are off, up to the whole queue', async () => {
    configurePasswordHashing({ memoryKib: 256, timeCost: 1, parallelism: 1 }, { capPerRequester: false });
    const hash = await hashPassword('pw');
    await verifyPassword(undefined, 'pw');
    const alone = '198.51.100.3';
    const running = Array.from({ length: HASHING_CONCURRENCY }, () => verifyPassword(hash, 'x', '203.0.113.8'));
    const waitingOther = verifyPassword(hash, 'x', '203.0.113.9');
    // Another requester waits, yet this one queues past its share: only the total bounds it.
    const burst = Array.from({ length: HASHING_QUEUE.total - 1 }, () => verifyPassword(hash, 'pw', alone));
    await expect(verifyPassword(hash, 'pw', alone)).rejects.toBeInstanceOf(TooManyRequestsError);
    expect(await Promise.all(burst)).toEqual(burst.map(() => true));
    await Promise.all([...running, waitingOther]);
  });
});
