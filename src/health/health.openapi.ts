// Probes for orchestrators.
import { json, type OpenApiFragment, ref, str } from '../openapi/openapi.kit';

export const healthOpenApi: OpenApiFragment = {
  paths: {
    '/healthz': { get: { tags: ['Operations'], summary: 'The process is up', responses: { '200': json(ref('Health'), 'Up') } } },
    '/readyz': {
      get: {
        tags: ['Operations'],
        summary: 'The database answers',
        responses: { '200': json(ref('Health'), 'Ready'), '503': json(ref('Health'), 'Database unavailable') },
      },
    },
  },
  schemas: {
    Health: { type: 'object', required: ['status'], properties: { status: str }, additionalProperties: false },
  },
};
