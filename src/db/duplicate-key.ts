/** True for the server's unique-index violation (E11000), on MongoDB and FerretDB alike. */
export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

/**
 * Runs an upsert, and once more if it failed with E11000: two callers upserting the same new
 * document at once both try to insert it, and the loser's second run finds it and updates it.
 */
export async function upsertRacing<T>(upsert: () => Promise<T>): Promise<T> {
  try {
    return await upsert();
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    return upsert();
  }
}
