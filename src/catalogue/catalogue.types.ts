import type { CategoryDocument, ProductDocument } from './catalogue.model';

/** Seed 001 part B: every field of a product is a string, the price with two decimals. */
export interface ProductView {
  id: string;
  name: string;
  price: string;
}

export interface CategoryView {
  id: string;
  name: string;
}

export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const absolute = Math.abs(cents);
  return `${sign}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}

/** "12.5" or "12.50" to 1250, exactly; null for anything that is not a plain decimal amount. */
export function parseCents(price: string): number | null {
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(price);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

export function toProductView(product: ProductDocument): ProductView {
  return { id: product._id, name: product.name, price: formatCents(product.priceCents) };
}

export function toCategoryView(category: CategoryDocument): CategoryView {
  return { id: category._id, name: category.name };
}
