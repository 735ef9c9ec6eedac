/** True for the server's unique-index violation (E11000), on MongoDB and FerretDB alike. */
export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}
