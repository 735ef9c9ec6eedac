import { Schema, model } from 'mongoose';

export interface CategoryDocument {
  _id: string;
  name: string;
  /** Listing order, from the sample file. */
  position: number;
}

export interface ProductDocument {
  _id: string;
  name: string;
  /** Money as integer cents, so "0.10" + "0.20" never drifts. */
  priceCents: number;
  position: number;
}

const options = { versionKey: false } as const;

const categorySchema = new Schema<CategoryDocument>(
  { _id: { type: String, required: true }, name: { type: String, required: true }, position: { type: Number, required: true } },
  { ...options, collection: 'categories' },
);
categorySchema.index({ position: 1 });

const productSchema = new Schema<ProductDocument>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    priceCents: { type: Number, required: true },
    position: { type: Number, required: true },
  },
  { ...options, collection: 'products' },
);
productSchema.index({ position: 1 });

export const CategoryModel = model<CategoryDocument>('Category', categorySchema);
export const ProductModel = model<ProductDocument>('Product', productSchema);
