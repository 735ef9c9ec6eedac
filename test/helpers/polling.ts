// For staleness bounds: how long something kept holding after a change elsewhere.

/** Polls `holds` every 50 ms until it turns false; how long that took in ms (Infinity after 3 s). */
export async function msUntilFalse(holds: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (let i = 0; i < 60; i++) {
    if (!(await holds())) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Infinity;
}
