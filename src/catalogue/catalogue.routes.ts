// Read-only product catalogue (seed 001 part B) behind HTTP Basic or an OAuth access token. Version 1
// lives in its own router, so a v2 can be mounted beside it without touching v1.
import { Router, type RequestHandler } from 'express';
import type { PasswordVerifier } from '../sign-in/sign-in.service';
import * as catalogueController from './catalogue.controller';
import { catalogueRefusals, requireCatalogueCaller } from './catalogue.guard';

export function createCatalogueV1Router(verifyPassword: PasswordVerifier, tokenGuard: RequestHandler): Router {
  const router = Router();
  router.use(requireCatalogueCaller(verifyPassword, tokenGuard));
  for (const [path, list, get] of [
    ['/products', catalogueController.listProducts, catalogueController.getProduct],
    ['/categories', catalogueController.listCategories, catalogueController.getCategory],
  ] as const) {
    router.route(path).get(list).all(catalogueController.methodNotAllowed);
    router.route(`${path}/:id`).get(get).all(catalogueController.methodNotAllowed);
  }
  router.use(catalogueRefusals);
  return router;
}
