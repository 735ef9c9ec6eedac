import type { Request, Response } from 'express';
import { AppError } from '../common/errors';
import * as catalogueService from './catalogue.service';

export async function listProducts(_req: Request, res: Response): Promise<void> {
  res.json({ error: false, products: await catalogueService.listProducts(), status_code: 200 });
}

export async function getProduct(req: Request<{ id: string }>, res: Response): Promise<void> {
  res.json({ error: false, products: await catalogueService.getProduct(req.params.id), status_code: 200 });
}

// Seed 001 names the category payload `user`; kept as written so existing clients keep working.
export async function listCategories(_req: Request, res: Response): Promise<void> {
  res.json({ error: false, user: await catalogueService.listCategories(), status_code: 200 });
}

export async function getCategory(req: Request<{ id: string }>, res: Response): Promise<void> {
  res.json({ error: false, user: await catalogueService.getCategory(req.params.id), status_code: 200 });
}

export function methodNotAllowed(): never {
  throw new AppError(405, { error: true, message: 'The catalogue is read-only', status_code: 405 }, { Allow: 'GET, HEAD' });
}
