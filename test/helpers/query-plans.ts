// Which index MongoDB's planner can serve a list's query from, by the rule it follows (equality, sort,
// range: the index's keys begin with the fields the filter names exactly, then the sort's fields, or a
// field the filter bounds). No mongod runs here, so the lists' queries are read from the driver's
// commands and held to the indexes their models declare (test/db/list-indexes.test.ts).
import type { CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';

type Direction = 1 | -1;
export interface IndexKeys {
  name: string;
  keys: [string, Direction][];
}

/** A list's query as the driver sent it. */
export interface ListQuery {
  collection: string;
  filter: Record<string, unknown>;
  sort: Record<string, Direction>;
}

const RANGE = new Set(['$gt', '$gte', '$lt', '$lte', '$in']);

/** The indexes a collection's models declare, `_id` first (every collection has it). */
export function declaredIndexes(collection: string): IndexKeys[] {
  const indexes: IndexKeys[] = [{ name: '_id', keys: [['_id', 1]] }];
  for (const model of Object.values(mongoose.models)) {
    if (model.collection.collectionName !== collection) continue;
    for (const [fields] of model.schema.indexes()) {
      const keys = Object.entries(fields as Record<string, Direction>);
      indexes.push({ name: keys.map(([field, direction]) => `${field}:${direction}`).join(','), keys });
    }
  }
  return indexes;
}

/** A field's condition: an equality, a range (bounds on the index), or neither (checked on each record). */
function kindOf(value: unknown): 'equality' | 'range' | 'other' {
  if (typeof value !== 'object' || value === null || value instanceof Date || Array.isArray(value)) return 'equality';
  if (value instanceof RegExp) return value.source.startsWith('^') && !value.flags.includes('i') ? 'range' : 'other';
  const operators = Object.keys(value);
  if (!operators.every((operator) => operator.startsWith('$'))) return 'equality';
  if (operators.includes('$regex')) {
    const { $regex: source, $options: options = '' } = value as { $regex: string | RegExp; $options?: string };
    const text = typeof source === 'string' ? source : source.source;
    return text.startsWith('^') && !String(options).includes('i') ? 'range' : 'other';
  }
  if (operators.includes('$eq')) return 'equality';
  return operators.some((operator) => RANGE.has(operator)) ? 'range' : 'other';
}

/**
 * Whether the index bounds what is read: its first keys are the filter's equalities (all of them), and
 * past them, when the filter has none, either the sort's first field (read in order, a page at a time)
 * or a field the filter bounds. A sort the index does not give is then made of what was read only.
 */
function serves(index: IndexKeys, filter: Record<string, unknown>, sort: [string, Direction][]): boolean {
  const fields = Object.entries(filter).filter(([field]) => !field.startsWith('$'));
  const equalities = fields.filter(([, value]) => kindOf(value) === 'equality').map(([field]) => field);
  const ranges = new Set(fields.filter(([, value]) => kindOf(value) === 'range').map(([field]) => field));
  const keys = index.keys.map(([field]) => field);
  if (!equalities.every((field) => keys.slice(0, equalities.length).includes(field))) return false;
  if (equalities.length > 0) return true;
  const next = keys[0];
  return (sort.length > 0 && sort[0][0] === next) || ranges.has(next);
}

/**
 * The index each part of the query is served from (each branch of an `$or` on its own, sorted after),
 * or null for a part no declared index serves: a read of the whole collection on MongoDB too.
 */
export function plan(query: ListQuery): string | null {
  const { $or, ...rest } = query.filter as { $or?: Record<string, unknown>[] } & Record<string, unknown>;
  const sort = Object.entries(query.sort);
  const indexes = declaredIndexes(query.collection);
  const pick = (filter: Record<string, unknown>, order: [string, Direction][]) =>
    indexes.find((index) => serves(index, filter, order))?.name ?? null;
  if (!$or) return pick(rest, sort);
  // A sorted $or is served branch by branch (each with what it shares), then merged and sorted.
  const branches = $or.map((branch) => pick({ ...rest, ...branch }, []) ?? pick({ ...branch }, []));
  return branches.every(Boolean) ? branches.join(' | ') : null;
}

/** A sort as the driver sends it (a Map, keeping its order, of another realm than a test's) or as an object. */
const sortOf = (sort: unknown): Record<string, Direction> => {
  const entries = (sort as { entries?: unknown } | undefined)?.entries;
  if (typeof entries === 'function' && !Array.isArray(sort)) return Object.fromEntries((sort as Map<string, Direction>).entries());
  return (sort as Record<string, Direction> | undefined) ?? {};
};

/** The list queries a command carries: a find's filter and sort, a count's query. */
export function listQueryOf(event: CommandStartedEvent): ListQuery | null {
  const command = event.command as Record<string, unknown>;
  const collection = String(command[event.commandName]);
  if (event.commandName === 'find')
    return {
      collection,
      filter: (command.filter as Record<string, unknown>) ?? {},
      sort: sortOf(command.sort),
    };
  if (event.commandName === 'aggregate') {
    const pipeline = command.pipeline as Record<string, unknown>[];
    const match = pipeline.find((stage) => stage.$match)?.$match as Record<string, unknown> | undefined;
    return { collection, filter: match ?? {}, sort: sortOf(pipeline.find((stage) => stage.$sort)?.$sort) };
  }
  if (event.commandName === 'count') return { collection, filter: (command.query as Record<string, unknown>) ?? {}, sort: {} };
  return null;
}
