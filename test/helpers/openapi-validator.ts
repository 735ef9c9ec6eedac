// Checks responses against the OpenAPI document: the route and status must be documented, and a
// JSON body must match its schema. testApp() runs every response through it.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/openapi/openapi.document';

interface Response {
  description: string;
  content?: Record<string, { schema: Record<string, unknown> }>;
}

interface Operation {
  responses: Record<string, Response>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> };
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// RFC 6531 addresses (a non-ASCII local part or domain), which ajv-formats leaves out.
ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
ajv.addSchema({ $id: 'openapi.json', components: openApiDocument.components });

const validators = new Map<object, ValidateFunction>();
function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
    validate = ajv.compile(rebased);
    validators.set(schema, validate);
  }
  return validate;
}

// Literal paths first, so /auth/refresh-token is not taken for /auth/{provider}.
const routes = Object.entries(openApiDocument.paths)
  .map(([template, item]) => ({
    template,
    item: item as unknown as Record<string, Operation>,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    literal: !template.includes('{'),
  }))
  .sort((a, b) => Number(b.literal) - Number(a.literal));

export function findOperation(method: string, path: string): Operation | undefined {
  return routes.find((route) => route.item[method.toLowerCase()] && route.pattern.test(path))?.item[method.toLowerCase()];
}

export function documentedRoutes(): string[] {
  return routes.flatMap((route) =>
    METHODS.filter((method) => route.item[method]).map((method) => `${method.toUpperCase()} ${route.template}`),
  );
}

/** What keeps a value from matching a schema of the document, or null when it matches. */
export function schemaProblem(schema: Record<string, unknown>, value: unknown): string | null {
  const validate = validatorFor(schema);
  return validate(value) ? null : ajv.errorsText(validate.errors);
}

/** What is wrong with a response, or null when the document allows it. */
export function responseProblem(
  method: string,
  path: string,
  status: number,
  contentType: string | undefined,
  body: string,
): string | null {
  const where = `${method} ${path} -> ${status}`;
  // CORS preflights are answered by the cors middleware for any route.
  if (method === 'OPTIONS') return null;
  // HEAD is GET without the body (RFC 9110 §9.3.2): GET's operation, its statuses and headers.
  const head = method === 'HEAD';
  const operation = findOperation(head ? 'GET' : method, path);
  // Not a route: the generic 404 (and the catalogue's 405 for writes) answer those.
  if (!operation) return status === 404 || status === 405 ? null : `${where}: no such operation in the document`;
  const response = operation.responses[String(status)];
  if (!response) return `${where}: status not documented`;
  if (!response.content || head) return null;
  // A client error may come as a bare status (the Bearer challenge on /api/user, say).
  if (status >= 400 && body === '' && !contentType) return null;
  const type = contentType?.split(';')[0].trim() ?? '';
  const media = response.content[type];
  if (!media) return `${where}: content type "${type}" not documented (${Object.keys(response.content).join(', ')})`;
  if (type !== 'application/json') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `${where}: body is not JSON`;
  }
  const problem = schemaProblem(media.schema, parsed);
  return problem && `${where}: ${problem} in ${body.slice(0, 300)}`;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

/** A query value as the document types it: integers and booleans arrive as text. */
function typedValue(schema: Record<string, unknown>, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (schema.type === 'integer' && /^-?\d+$/.test(value)) return Number(value);
  return value;
}

/**
 * What is wrong with a request the server accepted (answered below 400), or null when the document
 * allows it: the server must never accept what its own reference calls invalid.
 */
export function requestProblem(
  method: string,
  path: string,
  query: Record<string, unknown>,
  contentType: string | undefined,
  body: unknown,
): string | null {
  if (method === 'OPTIONS') return null;
  const where = `${method} ${path} (accepted)`;
  const operation = findOperation(method, path);
  if (!operation) return null;
  const pathItem = routes.find((route) => route.item[method.toLowerCase()] && route.pattern.test(path))?.item as
    { parameters?: Parameter[] } | undefined;
  const parameters = [...(pathItem?.parameters ?? []), ...(operation.parameters ?? [])].filter((parameter) => parameter.in === 'query');
  for (const parameter of parameters) {
    const value = query[parameter.name];
    if (value === undefined) {
      if (parameter.required) return `${where}: query parameter ${parameter.name} is required by the document`;
      continue;
    }
    const problem = schemaProblem(parameter.schema, typedValue(parameter.schema, value));
    if (problem) return `${where}: query parameter ${parameter.name}: ${problem}`;
  }
  const type = contentType?.split(';')[0].trim();
  const media = type && operation.requestBody?.content[type];
  if (media && body !== undefined && typeof body === 'object' && body !== null && Object.keys(body).length > 0) {
    const problem = schemaProblem(media.schema, body);
    if (problem) return `${where}: body: ${problem} in ${JSON.stringify(body).slice(0, 300)}`;
  }
  return null;
}
