// Password hashing with argon2id (OWASP's minimum by default: 19 MiB, t=2, p=1; configurable).
// A stored hash made with other parameters still verifies, and needsRehash tells the caller to
// upgrade it after a successful login. At most (cores - 1) hashes run at once, so a burst of logins
// cannot take every core from the event loop and the database; the queue for them is bounded and
// served in turn by client address, and a requester's surplus is refused only when it would make
// others wait (docs/operations.md, "Password hashing").
import { availableParallelism } from 'node:os';
import argon2 from 'argon2';
import { TooManyRequestsError } from './rate-limit';

export interface PasswordHashingOptions {
  memoryKib: number;
  timeCost: number;
  parallelism: number;
}

export const OWASP_MINIMUM: PasswordHashingOptions = { memoryKib: 19_456, timeCost: 2, parallelism: 1 };
export const HASHING_CONCURRENCY = Math.max(1, availableParallelism() - 1);

let hashOptions = toArgon2(OWASP_MINIMUM);
let dummyHash: Promise<string> | undefined;

function toArgon2(options: PasswordHashingOptions) {
  return { type: argon2.argon2id, memoryCost: options.memoryKib, timeCost: options.timeCost, parallelism: options.parallelism } as const;
}

/**
 * Sets the parameters for new hashes, process-wide (the server calls it once at start-up), and
 * whether one requester's waiting hashes are capped (off with RATE_LIMITS=off).
 */
export function configurePasswordHashing(
  options: PasswordHashingOptions,
  queue: { capPerRequester: boolean } = { capPerRequester: true },
): void {
  hashOptions = toArgon2(options);
  dummyHash = undefined;
  capPerRequester = queue.capPerRequester;
}

/** Who asked for a hash: a client address, or SERVER for work nobody outside asked for (commands, upgrades). */
export type Requester = string;
export const SERVER: Requester = 'server';

/**
 * How many may wait for a hashing slot from everyone together, and from one requester once the
 * queue is shared: while nobody else waits and the queue is less than half full, one requester (a
 * backend making accounts, every visitor behind a proxy when TRUST_PROXY is unset) may queue more.
 */
export const HASHING_QUEUE = { perRequester: 4, total: 256 } as const;

let capPerRequester = true;
let running = 0;
let queued = 0;
// Waiters by requester, served in turn: a requester with a hundred waiting gets one slot per round,
// so one flood cannot make another person wait behind all of it.
// eslint-disable-next-line no-restricted-syntax -- the hashing queue is the process's: argon2 runs on its threads.
const waiting = new Map<Requester, (() => void)[]>();

function nextWaiter(): (() => void) | undefined {
  const [requester, queue] = waiting.entries().next().value ?? [];
  if (!requester || !queue) return undefined;
  const next = queue.shift();
  waiting.delete(requester);
  if (queue.length > 0) waiting.set(requester, queue); // to the back of the round
  return next;
}

/**
 * Whether a requester with `mine` waiting is refused another: always past the total; past its own
 * share only when others are waiting too or the queue is half full (and the share is capped at all).
 */
function refused(requester: Requester, mine: number): boolean {
  if (queued >= HASHING_QUEUE.total) return true;
  if (requester === SERVER || !capPerRequester || mine < HASHING_QUEUE.perRequester) return false;
  const othersWaiting = waiting.size > (waiting.has(requester) ? 1 : 0);
  return othersWaiting || queued >= HASHING_QUEUE.total / 2;
}

/**
 * Runs argon2 work when a slot is free. Past the queue's bounds (refused above) it throws
 * TooManyRequestsError at once: a second later there is room again, and no caller waits unboundedly.
 */
async function withHashingSlot<T>(requester: Requester, work: () => Promise<T>): Promise<T> {
  if (running >= HASHING_CONCURRENCY) {
    const queue = waiting.get(requester) ?? [];
    if (refused(requester, queue.length)) throw new TooManyRequestsError(1);
    queued += 1;
    await new Promise<void>((resolve) => {
      queue.push(resolve);
      waiting.set(requester, queue);
    });
    queued -= 1;
  }
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    nextWaiter()?.();
  }
}

export function hashPassword(password: string, requester: Requester = SERVER): Promise<string> {
  return withHashingSlot(requester, () => argon2.hash(password, hashOptions));
}

/**
 * Verifies a password against a stored hash. With no stored hash it verifies against a throwaway
 * one, so an unknown account costs the same time as a wrong password. Throws TooManyRequestsError
 * when the hashing queue is full for this requester or for everyone.
 */
export async function verifyPassword(storedHash: string | undefined, password: string, requester: Requester = SERVER): Promise<boolean> {
  dummyHash ??= hashPassword('no account has this password');
  const hash = storedHash ?? (await dummyHash);
  let verified: boolean;
  try {
    verified = await withHashingSlot(requester, () => argon2.verify(hash, password));
  } catch (err) {
    if (err instanceof TooManyRequestsError) throw err;
    // A corrupt stored hash must not become a 500 that tells accounts apart.
    return false;
  }
  return verified && storedHash !== undefined;
}

export function needsRehash(storedHash: string): boolean {
  try {
    return argon2.needsRehash(storedHash, hashOptions);
  } catch {
    return true;
  }
}
