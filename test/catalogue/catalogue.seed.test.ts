import mongoose from 'mongoose';
import { CategoryModel, ProductModel } from '../../src/catalogue/catalogue.model';
import { loadCatalogue, loadSampleIfEmpty } from '../../src/catalogue/catalogue.service';
import { formatCents, parseCents } from '../../src/catalogue/catalogue.types';
import { connectDatabase, disconnectDatabase } from '../../src/db/mongoose';
import { runCommand } from '../helpers/commands';
import { clearCollections, testDatabaseUriWithName, uniqueDatabaseName } from '../helpers/db';

const databaseName = uniqueDatabaseName();
beforeAll(() => connectDatabase(testDatabaseUriWithName(databaseName)));
afterAll(async () => {
  await mongoose.connection.db?.dropDatabase();
  await disconnectDatabase();
});
beforeEach(clearCollections);

describe('loading the catalogue', () => {
  it('is idempotent: loading twice leaves the same records and restores changed ones', async () => {
    expect(await loadCatalogue()).toEqual({ categories: 4, products: 16 });
    await ProductModel.updateOne({ _id: '1' }, { $set: { name: 'Tampered', priceCents: 1 } });
    expect(await loadCatalogue()).toEqual({ categories: 4, products: 16 });
    expect(await ProductModel.countDocuments()).toBe(16);
    expect(await CategoryModel.countDocuments()).toBe(4);
    expect(await ProductModel.findById('1').lean()).toMatchObject({ name: 'House blend, 250 g', priceCents: 890 });
  });

  it('loads the sample only into an empty catalogue', async () => {
    expect(await loadSampleIfEmpty()).toBe(true);
    await ProductModel.updateOne({ _id: '2' }, { $set: { name: 'Kept' } });
    expect(await loadSampleIfEmpty()).toBe(false);
    expect((await ProductModel.findById('2').lean())!.name).toBe('Kept');
  });

  it('runs as `npm run seed` does, twice, against MONGODB_URI', async () => {
    const run = () => runCommand('seed', [], { MONGODB_URI: testDatabaseUriWithName(databaseName), LOG_LEVEL: 'info' });
    const first = await run();
    await run();
    expect(first.stdout).toContain('catalogue loaded: 4 categories, 16 products');
    expect(await ProductModel.countDocuments()).toBe(16);
    expect(await CategoryModel.countDocuments()).toBe(4);
  }, 60_000);
});

describe('money', () => {
  it.each([
    ['12.50', 1250],
    ['12.5', 1250],
    ['0.10', 10],
    ['7', 700],
    ['999999999.99', 99999999999],
  ])('parses %s to %i cents and formats it back with two decimals', (text, cents) => {
    expect(parseCents(text)).toBe(cents);
    expect(formatCents(cents)).toBe(`${text.split('.')[0]}.${(text.split('.')[1] ?? '').padEnd(2, '0')}`);
  });

  it('adds without floating-point drift', () => {
    expect(formatCents(parseCents('0.10')! + parseCents('0.20')!)).toBe('0.30');
  });

  it.each(['', 'abc', '1.234', '-1.00', '1e3', ' 1.00'])('refuses the price %j', (text) => {
    expect(parseCents(text)).toBeNull();
  });
});
