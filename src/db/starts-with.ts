import { trusted } from 'mongoose';

/**
 * A filter value for strings that start with `prefix` exactly as written: an anchored regular
 * expression with every special character escaped, which MongoDB answers as an index range.
 */
export function startsWith(prefix: string) {
  return trusted({ $regex: `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` });
}
