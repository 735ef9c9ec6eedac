// The load generator, in a process of its own so it does not share an event loop with any server.
// Reads one scenario as JSON from argv and prints autocannon's figures as JSON on stdout.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/** What one request may change of the scenario's: a different person, token or client each time. */
interface Variant {
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** A fixed number of requests instead of a fixed time. */
  amount?: number;
  /**
   * A JSON file of variants, taken in turn from `firstVariant` on, one per request (across all
   * connections): requests that must differ (a refresh token is used once) each get their own.
   */
  variantsFile?: string;
  firstVariant?: number;
  /** The status a right answer has when it is not 2xx (a redirect): such answers count as right. */
  okStatus?: number;
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2]) as LoadOptions;
  const variants = options.variantsFile ? (JSON.parse(readFileSync(options.variantsFile, 'utf8')) as Variant[]) : null;
  let next = options.firstVariant ?? 0;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds }),
    ...(variants && {
      requests: [
        {
          setupRequest: (request: autocannon.Request) => {
            const variant = variants[next++ % variants.length];
            return { ...request, ...variant, headers: { ...request.headers, ...variant.headers } };
          },
        },
      ],
    }),
  });
  const statuses = (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  const ok = options.okStatus ? (statuses[String(options.okStatus)]?.count ?? 0) : 0;
  process.stdout.write(
    JSON.stringify({
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx - ok,
      errors: result.errors + result.timeouts,
      total: result.requests.total,
      /** Where the next run of the same variants should start, so none is used twice. */
      nextVariant: next,
    }),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
