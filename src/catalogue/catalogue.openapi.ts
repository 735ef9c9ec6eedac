// The read-only catalogue of seed 001 part B.
import {
  conditional,
  notModified,
  int,
  json,
  jsonFaults,
  malformedPath,
  type OpenApiFragment,
  pathParam,
  ref,
  type Responses,
  type Schema,
  str,
} from '../openapi/openapi.kit';

const basicAuth = [{ catalogueBasic: [] }, { oauth: ['read'] }];

const catalogueResponses: Responses = {
  ...notModified,
  '401': json(
    ref('CatalogueError'),
    'Missing or wrong credentials (with a Basic challenge), or an access token that is not live or not for this server (a Bearer or DPoP challenge)',
  ),
  '403': json(ref('CatalogueError'), 'An access token without the read scope'),
  '429': json(ref('CatalogueError'), 'Too many failed sign-ins for this account from here; see Retry-After'),
  '405': json(ref('CatalogueError'), 'The catalogue is read-only'),
  ...jsonFaults,
};

function envelope(key: string, payload: Schema): Schema {
  return {
    type: 'object',
    required: ['error', key, 'status_code'],
    properties: { error: { const: false }, [key]: payload, status_code: { const: 200 } },
    additionalProperties: false,
  };
}

export const catalogueOpenApi: OpenApiFragment = {
  paths: {
    '/api/v1/products': {
      get: {
        tags: ['Catalogue'],
        operationId: 'listProducts',
        summary: 'Every product',
        security: basicAuth,
        parameters: conditional,
        responses: { '200': json(ref('ProductList'), 'Products'), ...catalogueResponses },
      },
    },
    '/api/v1/products/{id}': {
      parameters: [pathParam('id', 'Product id')],
      get: {
        tags: ['Catalogue'],
        operationId: 'getProduct',
        summary: 'One product',
        security: basicAuth,
        parameters: conditional,
        responses: {
          '200': json(ref('ProductOne'), 'Product'),
          '400': malformedPath,
          '404': json(ref('CatalogueError'), 'Product <id> not found'),
          ...catalogueResponses,
        },
      },
    },
    '/api/v1/categories': {
      get: {
        tags: ['Catalogue'],
        operationId: 'listCategories',
        summary: 'Every category (under the key `user`)',
        security: basicAuth,
        parameters: conditional,
        responses: { '200': json(ref('CategoryList'), 'Categories'), ...catalogueResponses },
      },
    },
    '/api/v1/categories/{id}': {
      parameters: [pathParam('id', 'Category id')],
      get: {
        tags: ['Catalogue'],
        operationId: 'getCategory',
        summary: 'One category (under the key `user`)',
        security: basicAuth,
        parameters: conditional,
        responses: {
          '200': json(ref('CategoryOne'), 'Category'),
          '400': malformedPath,
          '404': json(ref('CatalogueError'), 'Category <id> not found'),
          ...catalogueResponses,
        },
      },
    },
  },
  schemas: {
    Product: {
      type: 'object',
      required: ['id', 'name', 'price'],
      properties: { id: str, name: str, price: { type: 'string', pattern: '^-?\\d+\\.\\d{2}$' } },
      additionalProperties: false,
    },
    Category: { type: 'object', required: ['id', 'name'], properties: { id: str, name: str }, additionalProperties: false },
    ProductList: envelope('products', { type: 'array', items: ref('Product') }),
    ProductOne: envelope('products', ref('Product')),
    CategoryList: envelope('user', { type: 'array', items: ref('Category') }),
    CategoryOne: envelope('user', ref('Category')),
    CatalogueError: {
      type: 'object',
      required: ['error', 'message', 'status_code'],
      properties: { error: { const: true }, message: str, status_code: int },
      additionalProperties: false,
    },
  },
  examples: {
    Product: { id: '1', name: 'Espresso cup', price: '4.50' },
    ProductList: {
      error: false,
      products: [
        { id: '1', name: 'Espresso cup', price: '4.50' },
        { id: '2', name: 'Milk jug', price: '12.00' },
      ],
      status_code: 200,
    },
    ProductOne: { error: false, products: { id: '1', name: 'Espresso cup', price: '4.50' }, status_code: 200 },
    CategoryList: { error: false, user: [{ id: '1', name: 'Kitchen' }], status_code: 200 },
    CategoryOne: { error: false, user: { id: '1', name: 'Kitchen' }, status_code: 200 },
    CatalogueError: { error: true, message: 'Product 99 not found', status_code: 404 },
  },
};
