// The read-only catalogue of seed 001 part B, served from memory, and the loading of its data. Each
// instance keeps the whole catalogue (a few dozen records) and reloads it when a load raises the
// catalogue's change signal: a load on another instance (npm run seed) shows within a second, one here
// at once.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../common/errors';
import { changeSignal } from '../db/change-signals';
import * as catalogueDao from './catalogue.dao';
import { parseCents, toCategoryView, toProductView, type CategoryView, type ProductView } from './catalogue.types';

export const SAMPLE_CATALOGUE_FILE = path.resolve(__dirname, '../../data/catalogue.json');

/** 404 in the catalogue's envelope. */
export class CatalogueNotFoundError extends AppError {
  constructor(message: string) {
    super(404, { error: true, message, status_code: 404 });
  }
}

/** Raised by every load, after its records are written: instances that see it reload. */
const catalogueLoaded = changeSignal('catalogue');

interface Snapshot {
  generation: number;
  products: ProductView[];
  productById: ReadonlyMap<string, ProductView>;
  categories: CategoryView[];
  categoryById: ReadonlyMap<string, CategoryView>;
}

let snapshot: Snapshot | null = null;
/** Concurrent requests share one reload per generation. */
let loading: { generation: number; snapshot: Promise<Snapshot> } | null = null;

async function load(generation: number): Promise<Snapshot> {
  const [products, categories] = await Promise.all([catalogueDao.listProducts(), catalogueDao.listCategories()]);
  const productViews = products.map(toProductView);
  const categoryViews = categories.map(toCategoryView);
  return {
    generation,
    products: productViews,
    productById: new Map(productViews.map((product) => [product.id, product])),
    categories: categoryViews,
    categoryById: new Map(categoryViews.map((category) => [category.id, category])),
  };
}

/** The catalogue in memory, reloaded when a load here or elsewhere raised the signal. */
async function current(): Promise<Snapshot> {
  const generation = await catalogueLoaded.current();
  if (snapshot?.generation === generation) return snapshot;
  if (loading?.generation !== generation) {
    const reload: Promise<Snapshot> = load(generation)
      .then((fresh) => {
        // Kept only if no load was signalled while reading: the records may predate it.
        if (catalogueLoaded.seen === generation) snapshot = fresh;
        return fresh;
      })
      .finally(() => {
        if (loading?.snapshot === reload) loading = null;
      });
    loading = { generation, snapshot: reload };
  }
  return loading.snapshot;
}

export async function listProducts(): Promise<ProductView[]> {
  return (await current()).products;
}

export async function getProduct(id: string): Promise<ProductView> {
  const product = (await current()).productById.get(id);
  if (!product) throw new CatalogueNotFoundError(`Product ${id} not found`);
  return product;
}

export async function listCategories(): Promise<CategoryView[]> {
  return (await current()).categories;
}

export async function getCategory(id: string): Promise<CategoryView> {
  const category = (await current()).categoryById.get(id);
  if (!category) throw new CatalogueNotFoundError(`Category ${id} not found`);
  return category;
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
  // This instance sees its own load at once; the others within a second.
  await catalogueLoaded.raise();
  return { categories: categories.length, products: products.length };
}

/** Loads the sample catalogue when there is none yet (the embedded database's first start). */
export async function loadSampleIfEmpty(): Promise<boolean> {
  if ((await catalogueDao.countProducts()) > 0) return false;
  await loadCatalogue();
  return true;
}
