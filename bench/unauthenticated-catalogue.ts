// The catalogue's product list handler with the same logging and error handling but no Basic auth:
// the baseline for what authentication costs. PORT and MONGODB_URI come from the bench.
import express from 'express';
import { requestLogging } from '../src/common/request-logging';
import * as catalogueController from '../src/catalogue/catalogue.controller';
import { errorHandler } from '../src/common/error-handler';
import { createLogger } from '../src/common/logger';
import { connectDatabase } from '../src/db/mongoose';

async function main(): Promise<void> {
  await connectDatabase(process.env.MONGODB_URI!);
  const logger = createLogger(process.env.LOG_LEVEL === 'silent' ? 'silent' : 'info');
  const app = express();
  app.disable('x-powered-by');
  app.use(requestLogging(logger));
  app.get('/api/v1/products', catalogueController.listProducts);
  app.use(errorHandler);
  app.listen(Number(process.env.PORT), '127.0.0.1');
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
