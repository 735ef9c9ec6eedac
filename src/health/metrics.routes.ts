// GET /metrics in Prometheus's text format: on METRICS_PORT for anyone who can reach that port, and on
// the main port only for a bearer of METRICS_TOKEN. Mounted ahead of request logging, like the probes.
import { timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { bearerToken } from '../common/authorization';
import { UnauthorizedError } from '../common/errors';
import { registry } from '../common/metrics';
import { noStore } from '../common/no-store';

function requireToken(expected: string): RequestHandler {
  const wanted = Buffer.from(expected);
  return (req, _res, next) => {
    const presented = Buffer.from(bearerToken(req.headers.authorization) ?? '');
    if (presented.length !== wanted.length || !timingSafeEqual(presented, wanted)) {
      throw new UnauthorizedError({ 'WWW-Authenticate': 'Bearer realm="metrics"' });
    }
    next();
  };
}

/** token: null serves the metrics to anyone (the metrics port); otherwise to its bearer only. */
export function createMetricsRouter(token: string | null): Router {
  const router = Router();
  const guards = token === null ? [] : [requireToken(token)];
  router.get('/metrics', ...guards, async (_req, res) => {
    noStore(res)
      .type(registry.contentType)
      .send(await registry.metrics());
  });
  return router;
}
