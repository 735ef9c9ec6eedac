/**
 * The APIs the bench's JWT client_credentials rows ask tokens for, one per signing algorithm, so that
 * this server and node-oidc-provider sign with the same one in each row.
 */
export const BENCH_RESOURCES = { ES256: 'urn:bench:api:es256', RS256: 'urn:bench:api:rs256' } as const;
