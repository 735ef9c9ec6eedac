// The load generator, in a process of its own so it does not share an event loop with any server.
// Reads one scenario as JSON from argv and prints autocannon's figures as JSON on stdout.
import autocannon from 'autocannon';

interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** A fixed number of requests instead of a fixed time. */
  amount?: number;
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2]) as LoadOptions;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds }),
  });
  process.stdout.write(
    JSON.stringify({
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      total: result.requests.total,
    }),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
