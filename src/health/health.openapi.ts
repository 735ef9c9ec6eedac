// Probes for orchestrators.
import { empty, json, type OpenApiFragment, ref, str, text } from '../openapi/openapi.kit';

export const healthOpenApi: OpenApiFragment = {
  paths: {
    '/healthz': {
      get: {
        tags: ['Operations'],
        operationId: 'liveness',
        security: [],
        summary: 'The process is up',
        responses: { '200': json(ref('Health'), 'Up') },
      },
    },
    '/readyz': {
      get: {
        tags: ['Operations'],
        operationId: 'readiness',
        security: [],
        summary: 'The database answers',
        responses: { '200': json(ref('Health'), 'Ready'), '503': json(ref('Health'), 'Database unavailable') },
      },
    },
    '/metrics': {
      get: {
        tags: ['Operations'],
        operationId: 'metrics',
        summary: "Prometheus metrics; on this port only when METRICS_TOKEN is set (404 otherwise), and always on METRICS_PORT's listener",
        security: [{ metricsToken: [] }],
        responses: {
          '200': text('Prometheus text format 0.0.4'),
          '401': empty('No bearer token, or not METRICS_TOKEN'),
          '404': json(ref('Error'), 'METRICS_TOKEN is not set'),
        },
      },
    },
  },
  schemas: {
    Health: { type: 'object', required: ['status'], properties: { status: str }, additionalProperties: false },
  },
  examples: {
    Health: { status: 'ok' },
  },
};
