// For staleness bounds: how long something kept holding after a change elsewhere.

/**
 * Polls `holds` every 50 ms until it turns false: how long after the start the request that first
 * found it false began (Infinity after 3 s). That request's own time is left out: a request that
 * began then was already refused, which is what a staleness bound promises; on a loaded machine a
 * refusal that checks a password can take longer than the bound itself.
 */
export async function msUntilFalse(holds: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (let i = 0; i < 60; i++) {
    const began = Date.now();
    if (!(await holds())) return began - start;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Infinity;
}

/**
 * Waits for work a request leaves running after its answer (a mail, an event, a back-channel call)
 * until `happened` holds. Not a bound on anything: on a loaded CI machine such work can trail the
 * answer by seconds, so it gives up only after `withinMs` (20 s), throwing what it waited for.
 */
export async function eventually(what: string, happened: () => Promise<boolean> | boolean, withinMs = 20_000): Promise<void> {
  const start = Date.now();
  for (let i = 0; i < Math.ceil(withinMs / 25); i++) {
    if (await happened()) return;
    if (Date.now() - start > withinMs) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`waited ${withinMs} ms for ${what}`);
}
