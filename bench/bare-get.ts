// The floor for the weather figures: plain http.get calls to the fake provider from `connections`
// concurrent loops, with a keep-alive agent, for a fixed time. Prints p50 and p99 in ms as JSON.
import http from 'node:http';

async function main(): Promise<void> {
  const { url, connections, durationSeconds } = JSON.parse(process.argv[2]) as {
    url: string;
    connections: number;
    durationSeconds: number;
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const deadline = Date.now() + durationSeconds * 1000;
  const latencies: number[] = [];
  const get = () =>
    new Promise<void>((resolve, reject) => {
      const started = process.hrtime.bigint();
      http
        .get(url, { agent }, (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
            resolve();
          });
        })
        .on('error', reject);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) await get();
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  process.stdout.write(JSON.stringify({ p50: at(0.5), p99: at(0.99), requestsPerSecond: latencies.length / durationSeconds }));
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
