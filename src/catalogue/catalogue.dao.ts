// The only importer of the catalogue models; returns plain objects.
import { CategoryModel, ProductModel, type CategoryDocument, type ProductDocument } from './catalogue.model';

export function listProducts(): Promise<ProductDocument[]> {
  return ProductModel.find({}).sort({ position: 1 }).lean<ProductDocument[]>().exec();
}

export function listCategories(): Promise<CategoryDocument[]> {
  return CategoryModel.find({}).sort({ position: 1 }).lean<CategoryDocument[]>().exec();
}

export async function countProducts(): Promise<number> {
  return ProductModel.estimatedDocumentCount().exec();
}

/** Inserts or overwrites each record by id, so loading the same data twice changes nothing. */
export async function upsertAll(categories: CategoryDocument[], products: ProductDocument[]): Promise<void> {
  const upserts = <T extends { _id: string }>(records: T[]) =>
    records.map(({ _id, ...fields }) => ({ updateOne: { filter: { _id }, update: { $set: fields }, upsert: true } }));
  if (categories.length) await CategoryModel.bulkWrite(upserts(categories));
  if (products.length) await ProductModel.bulkWrite(upserts(products));
}
