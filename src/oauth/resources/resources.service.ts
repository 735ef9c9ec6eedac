// Resources (RFC 8707): what a `resource` parameter may name, and what a token for it looks like.
// This server's own APIs (/api/user, userinfo, the catalogue) are the resource named by the issuer
// itself: always there, JWT access tokens, every scope the server knows. Registered resources are
// few (LIMITS.resources), so each app keeps them all in memory (resources.store.ts) and reads them
// again only when a change was signalled: a made-up `resource` value costs no database read.
import { integerField, limitField, listField, oneOfField, readBody, stringField, textField } from '../../common/request-fields';
import { Refusal } from '../../common/refusals';
import type { Config } from '../../config';
import {
  JWT_ACCESS_TOKEN_ALGORITHM,
  LIMITS,
  RESOURCE_FORMATS,
  maxLengthOf,
  SCOPE_TOKEN,
  SCOPE_TOKEN_LENGTH,
  SIGN_IN_SCOPES,
  SIGNING_ALGORITHMS,
  SCOPES,
  type ResourceFormat,
  type SigningAlgorithm,
} from '../protocol';
import type { ResourceDocument } from './resources.model';
import * as resourcesStore from './resources.store';

export interface Resource {
  id: string;
  scopes: readonly string[];
  format: ResourceFormat;
  /** Seconds. */
  accessTokenLifetime: number;
  signingAlg: SigningAlgorithm;
  /** True for this server's own APIs. */
  own: boolean;
}

/** The resource of this server's own APIs: its identifier is the issuer. */
export const ownResource = (config: Pick<Config, 'publicUrl'>): Resource => ({
  id: config.publicUrl,
  scopes: SCOPES,
  format: 'jwt',
  accessTokenLifetime: LIMITS.jwtAccessTokenLifetimeSeconds,
  signingAlg: JWT_ACCESS_TOKEN_ALGORITHM,
  own: true,
});

const fromDocument = (doc: ResourceDocument): Resource => ({
  id: doc._id,
  scopes: doc.scopes,
  format: doc.format,
  accessTokenLifetime: doc.accessTokenLifetime,
  signingAlg: doc.signingAlg,
  own: false,
});

export { cachedResources, databaseResources, type ResourceStore } from './resources.store';

/**
 * What a request's `resource` names: nothing (absent), a resource, or why it is refused (RFC 8707 §2,
 * `invalid_target`): not an absolute URI without a fragment, or not registered here.
 */
export async function named(
  config: Pick<Config, 'publicUrl'>,
  resources: resourcesStore.ResourceStore,
  value: string | undefined,
): Promise<Resource | undefined | { refused: string }> {
  if (value === undefined) return undefined;
  const problem = identifierProblem(value);
  if (problem) return { refused: problem };
  if (value === config.publicUrl) return ownResource(config);
  const doc = (await resources.all()).get(value);
  return doc ? fromDocument(doc) : { refused: `${value.slice(0, 200)} is not a resource registered here` };
}

/** The scopes a token for the resource carries of a granted scope: its own only (all for this server's APIs). */
export const scopeFor = (resource: Resource | undefined, scope: readonly string[]): string[] =>
  resource && !resource.own ? scope.filter((value) => resource.scopes.includes(value)) : [...scope];

/** The scopes a request naming the resource may ask for besides this server's: its own. */
export const extraScopes = (resource: Resource | undefined): readonly string[] => (resource && !resource.own ? resource.scopes : []);

/** Why an identifier is not a resource indicator (RFC 8707 §2: absolute URI, no fragment; no query either here), or null. */
export function identifierProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'resource must be an absolute URI';
  }
  if (value.includes('#')) return 'resource must not have a fragment';
  if (url.search !== '' || value.includes('?')) return 'resource must not have a query';
  return null;
}

/** GET /admin/api/resources's query: a page of resources after an identifier. */
export const RESOURCES_QUERY = {
  limit: limitField(LIMITS.pageSize),
  after: textField('The `next` of the previous page', maxLengthOf('resource')),
} as const;

export class ResourceInputError extends Refusal {
  constructor(message: string) {
    super('invalid', message);
  }
}
/** A resource with that identifier is registered already. */
export class ResourceExistsError extends Refusal {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** A scope a resource may have: RFC 6749 scope characters, and not one of signing in's. */
const apiScopeProblem = (scope: string): string | null =>
  SCOPE_TOKEN.test(scope) && !SIGN_IN_SCOPES.includes(scope)
    ? null
    : `scope ${JSON.stringify(scope.slice(0, SCOPE_TOKEN_LENGTH + 6))} is not an API scope (RFC 6749 scope characters, at most ${SCOPE_TOKEN_LENGTH}; not ${SIGN_IN_SCOPES.join(' or ')})`;

/** POST /admin/api/resources's body (and `npm run resources -- create`'s options, put in its words). */
export const NEW_RESOURCE = {
  fields: {
    resource: stringField('An absolute URI without fragment or query (RFC 8707 §2)', {
      minLength: 1,
      maxLength: maxLengthOf('resource'),
      rule: `an absolute URI of at most ${maxLengthOf('resource')} characters`,
      problem: identifierProblem,
    }),
    scopes: listField(`The scopes its tokens may carry: API scopes, not ${SIGN_IN_SCOPES.join(' or ')}`, {
      minItems: 1,
      maxItems: LIMITS.scopesPerResource,
      maxLength: SCOPE_TOKEN_LENGTH,
      itemProblem: apiScopeProblem,
    }),
    format: oneOfField(RESOURCE_FORMATS, 'jwt (RFC 9068, the default) or opaque'),
    access_token_lifetime: integerField(
      `Seconds; ${LIMITS.jwtAccessTokenLifetimeSeconds} by default`,
      LIMITS.resourceTokenLifetimeMin,
      LIMITS.resourceTokenLifetimeMax,
    ),
    signing_alg: oneOfField(SIGNING_ALGORITHMS, `${JWT_ACCESS_TOKEN_ALGORITHM} by default`),
  },
  required: ['resource', 'scopes'],
} as const;

/** Registers a resource from a body (NEW_RESOURCE's rules); a Refusal says what is wrong or that it exists. */
export async function create(config: Pick<Config, 'publicUrl'>, body: unknown, now = new Date()): Promise<Resource> {
  const input = readBody(NEW_RESOURCE.fields, NEW_RESOURCE.required, body);
  const id = input.resource!;
  if (id === config.publicUrl) throw new ResourceInputError("this server's own APIs are that resource already");
  const scopes = [...new Set(input.scopes)];
  const format = input.format ?? 'jwt';
  const lifetime = input.access_token_lifetime ?? LIMITS.jwtAccessTokenLifetimeSeconds;
  const signingAlg = input.signing_alg ?? JWT_ACCESS_TOKEN_ALGORITHM;
  if ((await resourcesStore.count()) >= LIMITS.resources)
    throw new ResourceInputError(`at most ${LIMITS.resources} resources may be registered`);
  const doc: ResourceDocument = {
    _id: id,
    scopes,
    format: format,
    accessTokenLifetime: lifetime,
    signingAlg,
    createdAt: now,
  };
  if (!(await resourcesStore.insert(doc))) throw new ResourceExistsError(`${id} is registered already`);
  return fromDocument(doc);
}

/** Deletes a registered resource; false when there was none. Tokens issued for it live out their time. */
export const remove = (id: string): Promise<boolean> => resourcesStore.remove(id);

/** One page of the registered resources, in identifier order after `after`. */
export async function page(limit: number, after?: string): Promise<Resource[]> {
  return (await resourcesStore.page(limit, after)).map(fromDocument);
}

/** The wire form (admin API, `npm run resources -- list --json`). */
export const resourceView = (resource: Resource) => ({
  resource: resource.id,
  scopes: resource.scopes,
  format: resource.format,
  access_token_lifetime: resource.accessTokenLifetime,
  signing_alg: resource.signingAlg,
});
