// Prometheus metrics (prom-client): one registry for the process, with Node's own (event-loop lag,
// heap, GC, CPU), requests by route, tokens issued by grant, failed password checks and the database
// connection pool. Served by src/metrics/ on METRICS_PORT or behind METRICS_TOKEN.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { poolStats } from '../db/mongoose';

export const registry = new Registry();

let collectingProcessMetrics = false;
/** Node's own metrics (event-loop lag, heap, GC, CPU) sample on timers: started by createApp, once. */
export function collectProcessMetrics(): void {
  if (collectingProcessMetrics) return;
  collectingProcessMetrics = true;
  collectDefaultMetrics({ register: registry });
}

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'Requests answered, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from the request to the end of its response, by method and route pattern',
  labelNames: ['method', 'route'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const tokensIssued = new Counter({
  name: 'oauth_tokens_issued_total',
  help: 'OAuth access tokens issued, by grant type',
  labelNames: ['grant_type'] as const,
  registers: [registry],
});

export const signInFailures = new Counter({
  name: 'sign_in_failures_total',
  help: 'Failed password checks, from every place that checks a password',
  registers: [registry],
});

export const poolConnections = new Gauge({
  name: 'mongodb_pool_connections',
  help: "The database driver's pooled connections: open, and checked out by a query",
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const { open, inUse } = poolStats();
    this.set({ state: 'open' }, open);
    this.set({ state: 'in_use' }, inUse);
  },
});
