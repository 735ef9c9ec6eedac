// The weather aggregator of seed 001 part C.
import { MAX_CITY_LENGTH } from './weather.service';
import { conditional, json, notModified, type OpenApiFragment, pathParam, ref, str, text } from '../openapi/openapi.kit';

export const weatherOpenApi: OpenApiFragment = {
  paths: {
    '/hello': {
      get: {
        tags: ['Weather'],
        operationId: 'hello',
        security: [],
        parameters: conditional,
        summary: 'Says hello!',
        responses: { '200': text('hello!'), ...notModified },
      },
    },
    '/weather/{city}': {
      parameters: [
        {
          ...pathParam('city', `City name, 1 to ${MAX_CITY_LENGTH} characters`),
          schema: { type: 'string', minLength: 1, maxLength: MAX_CITY_LENGTH },
        },
      ],
      get: {
        tags: ['Weather'],
        operationId: 'cityTemperature',
        security: [],
        summary: 'Mean temperature in kelvin over two providers, queried at once',
        responses: {
          '200': json(ref('Weather'), 'Weather'),
          '400': {
            description: 'City name too long (text), or a malformed path (JSON)',
            content: { 'text/plain': { schema: str }, 'application/json': { schema: ref('Error') } },
          },
          '500': text('A provider failed: names the provider and the cause, never the key'),
        },
      },
    },
  },
  schemas: {
    Weather: {
      type: 'object',
      required: ['city', 'temp', 'took'],
      properties: { city: str, temp: { type: 'number' }, took: str },
      additionalProperties: false,
    },
  },
  examples: {
    Weather: { city: 'Oslo', temp: 276.45, took: '182.3ms' },
  },
};
