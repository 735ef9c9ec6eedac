/**
 * Runs a clean-up at most once per interval, when called from a busy path. Stands in for TTL
 * indexes, which FerretDB 1.x lacks; every expiring record is also checked for expiry when read.
 * The sweep runs in the background: the request that happened to start it does not wait for it, one
 * sweep runs at a time, and a failed one (an outage) is tried again once the interval has passed.
 */
export function throttled(intervalMs: number, sweep: (now: Date) => Promise<void>): (now?: Date) => void {
  let last = 0;
  let running = false;
  return (now = new Date()) => {
    if (running || now.getTime() - last < intervalMs) return;
    last = now.getTime();
    running = true;
    sweep(now)
      .catch(() => undefined)
      .finally(() => (running = false));
  };
}
