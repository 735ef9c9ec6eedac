// Issue 35: an operation's request rules in the OpenAPI document come from the rules the server checks
// (express-validator schemas, the fields of common/request-fields.ts, the OAuth parameters of
// protocol.ts and oauth.parameters.ts), marked `x-request-rules` by the generators. Every query
// parameter and request body is held to it.
import { RULES_MARK } from '../../src/common/validation';
import { openApiDocument } from '../../src/openapi/openapi.document';

type Schema = { $ref?: string; anyOf?: Schema[]; oneOf?: Schema[]; [RULES_MARK]?: string };
type Operation = {
  operationId: string;
  parameters?: { in: string; name: string; [RULES_MARK]?: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
};
const doc = openApiDocument as unknown as {
  paths: Record<string, Record<string, Operation> & { parameters?: Operation['parameters'] }>;
  components: { schemas: Record<string, Schema> };
};

const resolve = (schema: Schema): Schema => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema);
const generated = (schema: Schema): boolean => {
  const found = resolve(schema);
  if (found[RULES_MARK]) return true;
  const variants = found.anyOf ?? found.oneOf;
  return variants !== undefined && variants.every(generated);
};

/** The operations with a query parameter or a request body whose rules are not generated. */
function handWritten(): string[] {
  return Object.values(doc.paths).flatMap((item) =>
    ['get', 'put', 'post', 'patch', 'delete'].flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      const query = [...(item.parameters ?? []), ...(operation.parameters ?? [])].filter((parameter) => parameter.in === 'query');
      const bodies = Object.values(operation.requestBody?.content ?? {});
      const byHand = query.some((parameter) => !parameter[RULES_MARK]) || bodies.some(({ schema }) => !generated(schema));
      return byHand ? [operation.operationId] : [];
    }),
  );
}

it('states no request rule by hand: every query parameter and body comes from what the server reads', () => {
  expect(handWritten()).toEqual([]);
});
