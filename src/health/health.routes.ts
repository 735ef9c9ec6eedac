// Probes for orchestrators: /healthz says the process is up, /readyz that the database answers.
// Mounted ahead of request logging, so frequent probes do not flood the logs.
import { Router } from 'express';
import { noStore } from '../common/no-store';
import { isDatabaseReachable } from '../db/mongoose';

export function createHealthRouter(): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    noStore(res).json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const ready = await isDatabaseReachable();
    noStore(res)
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : 'database unavailable' });
  });
  return router;
}
