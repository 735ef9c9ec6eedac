/**
 * Runs a clean-up at most once per interval, when called from a busy path. Stands in for TTL
 * indexes, which FerretDB 1.x lacks; every expiring record is also checked for expiry when read.
 */
export function throttled(intervalMs: number, sweep: (now: Date) => Promise<void>): (now?: Date) => Promise<void> {
  let last = 0;
  return async (now = new Date()) => {
    if (now.getTime() - last < intervalMs) return;
    last = now.getTime();
    await sweep(now);
  };
}
