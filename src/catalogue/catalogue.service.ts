// The read-only catalogue of seed 001 part B, and the loading of its sample data.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../common/errors';
import * as catalogueDao from './catalogue.dao';
import { parseCents, toCategoryView, toProductView, type CategoryView, type ProductView } from './catalogue.types';

export const SAMPLE_CATALOGUE_FILE = path.resolve(__dirname, '../../data/catalogue.json');

/** 404 in the catalogue's envelope. */
export class CatalogueNotFoundError extends AppError {
  constructor(message: string) {
    super(404, { error: true, message, status_code: 404 });
  }
}

export async function listProducts(): Promise<ProductView[]> {
  return (await catalogueDao.listProducts()).map(toProductView);
}

export async function getProduct(id: string): Promise<ProductView> {
  const product = await catalogueDao.findProduct(id);
  if (!product) throw new CatalogueNotFoundError(`Product ${id} not found`);
  return toProductView(product);
}

export async function listCategories(): Promise<CategoryView[]> {
  return (await catalogueDao.listCategories()).map(toCategoryView);
}

export async function getCategory(id: string): Promise<CategoryView> {
  const category = await catalogueDao.findCategory(id);
  if (!category) throw new CatalogueNotFoundError(`Category ${id} not found`);
  return toCategoryView(category);
}

interface SampleFile {
  categories: { id: string; name: string }[];
  products: { id: string; name: string; price: string }[];
}

/** Loads a catalogue file (the sample by default), overwriting records with the same ids. */
export async function loadCatalogue(file = SAMPLE_CATALOGUE_FILE): Promise<{ categories: number; products: number }> {
  const data = JSON.parse(await readFile(file, 'utf8')) as SampleFile;
  const products = data.products.map((product, position) => {
    const priceCents = parseCents(product.price);
    if (priceCents === null) throw new Error(`${file}: product ${product.id} has the price "${product.price}", not an amount`);
    return { _id: product.id, name: product.name, priceCents, position };
  });
  const categories = data.categories.map((category, position) => ({ _id: category.id, name: category.name, position }));
  await catalogueDao.upsertAll(categories, products);
  return { categories: categories.length, products: products.length };
}

/** Loads the sample catalogue when there is none yet (the embedded database's first start). */
export async function loadSampleIfEmpty(): Promise<boolean> {
  if ((await catalogueDao.countProducts()) > 0) return false;
  await loadCatalogue();
  return true;
}
