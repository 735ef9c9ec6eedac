// Read-only product catalogue (seed 001 part B) behind HTTP Basic. Version 1 lives in its own
// router, so a v2 can be mounted beside it without touching v1.
import { Router } from 'express';
import type { SignInLimits } from '../auth/auth.service';
import type { VerifiedCredentialsCache } from '../auth/auth.service';
import * as catalogueController from './catalogue.controller';
import { requireBasicAuth } from './catalogue.guard';

export function createCatalogueV1Router(credentialCache: VerifiedCredentialsCache | undefined, limits: SignInLimits | null): Router {
  const router = Router();
  router.use(requireBasicAuth(credentialCache, limits));
  for (const [path, list, get] of [
    ['/products', catalogueController.listProducts, catalogueController.getProduct],
    ['/categories', catalogueController.listCategories, catalogueController.getCategory],
  ] as const) {
    router.route(path).get(list).all(catalogueController.methodNotAllowed);
    router.route(`${path}/:id`).get(get).all(catalogueController.methodNotAllowed);
  }
  return router;
}
