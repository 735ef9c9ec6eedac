// The operator's token exchange rules (RFC 8693 and ID-JAG, docs/oauth.md "Token exchange"): which
// client may exchange a person's token for an access token to which resource, or for an ID-JAG to
// which authorization server, with at most which scopes. Set from the admin API and the console,
// each change an event; read by the token exchange grant, one rule by `_id`.
import { limitField, listField, oneOfField, readBody, stringField, textField } from '../../common/request-fields';
import { Refusal } from '../../common/refusals';
import { LIMITS, SCOPE_TOKEN, SCOPE_TOKEN_LENGTH } from '../protocol';
import { identifierProblem } from '../resources/resources.service';
import * as policiesDao from './exchange-policies.dao';
import type { ExchangePolicyDocument } from './exchange-policies.model';
import { EXCHANGE_SUBJECTS, EXCHANGE_TOKEN_TYPES, type ExchangePolicyView } from './exchange.types';

export type { ExchangePolicyDocument } from './exchange-policies.model';
export { EXCHANGE_SUBJECTS, EXCHANGE_TOKEN_TYPES, type ExchangePolicyView, type ExchangeTokenType } from './exchange.types';

/** The longest client_id a rule names (a metadata document's URL is one). */
export const CLIENT_ID_LENGTH = LIMITS.redirectUriLength;

/** The body of PUT /admin/api/exchange-policies (and the console's form): one rule. */
export const EXCHANGE_POLICY = {
  fields: {
    client_id: stringField('The client that exchanges', { minLength: 1, maxLength: CLIENT_ID_LENGTH }),
    audience: stringField(
      'access_token: a resource registered here, or this server (its own APIs); id-jag: the issuer of the authorization server the ID-JAG is for',
      { minLength: 1, maxLength: LIMITS.redirectUriLength, rule: 'an absolute URI', problem: identifierProblem },
    ),
    token_type: oneOfField(EXCHANGE_TOKEN_TYPES, 'access_token (the default) or id-jag'),
    scopes: listField('The most the new token may carry (never more than the token exchanged has)', {
      minItems: 1,
      maxItems: LIMITS.scopesPerResource,
      maxLength: SCOPE_TOKEN_LENGTH,
      itemProblem: (scope) => (SCOPE_TOKEN.test(scope) ? null : 'scopes must be RFC 6749 scope names'),
    }),
    subjects: oneOfField(EXCHANGE_SUBJECTS, "own (the default): only tokens issued to this client; any: any client's"),
    target_client_id: stringField("id-jag only, and required there: the client's id at that authorization server", {
      minLength: 1,
      maxLength: CLIENT_ID_LENGTH,
    }),
  },
  required: ['client_id', 'audience', 'scopes'],
} as const;

/** GET /admin/api/exchange-policies's query. */
export const EXCHANGE_POLICIES_QUERY = {
  limit: limitField(LIMITS.pageSize),
  after: textField('The `next` of the previous page', CLIENT_ID_LENGTH * 2 + 1),
} as const;

export const viewOf = (policy: ExchangePolicyDocument): ExchangePolicyView => ({
  client_id: policy.clientId,
  audience: policy.audience,
  token_type: policy.tokenType,
  scopes: policy.scopes,
  subjects: policy.subjects,
  ...(policy.targetClientId !== undefined && { target_client_id: policy.targetClientId }),
  created_at: policy.createdAt.toISOString(),
});

/**
 * Sets a rule from a body (EXCHANGE_POLICY), replacing the client's rule for that audience;
 * `clientExists` says whether the client is registered. A Refusal says what is wrong.
 */
export async function set(
  body: unknown,
  clientExists: (clientId: string) => Promise<boolean>,
  now = new Date(),
): Promise<ExchangePolicyView> {
  const input = readBody(EXCHANGE_POLICY.fields, EXCHANGE_POLICY.required, body);
  const tokenType = input.token_type ?? 'access_token';
  if (tokenType === 'id-jag' && input.target_client_id === undefined)
    throw new Refusal('invalid', "target_client_id is required for id-jag: the client's id at that authorization server");
  if (tokenType === 'access_token' && input.target_client_id !== undefined)
    throw new Refusal('invalid', 'target_client_id is for id-jag rules only');
  const clientId = input.client_id!;
  if (!(await clientExists(clientId))) throw new Refusal('invalid', `client_id ${clientId.slice(0, 200)} is not a registered client`);
  const policy: ExchangePolicyDocument = {
    _id: policiesDao.policyId(clientId, input.audience!),
    clientId,
    audience: input.audience!,
    tokenType,
    scopes: [...new Set(input.scopes)],
    subjects: input.subjects ?? 'own',
    ...(input.target_client_id !== undefined && { targetClientId: input.target_client_id }),
    createdAt: now,
  };
  if (!(await policiesDao.put(policy, LIMITS.exchangePolicies)))
    throw new Refusal('cap', `at most ${LIMITS.exchangePolicies} exchange rules may be set`);
  return viewOf(policy);
}

/** The client's rule for an audience, or null (no rule: no exchange). */
export const policyFor = (clientId: string, audience: string): Promise<ExchangePolicyDocument | null> =>
  policiesDao.find(clientId, audience);

export const remove = (clientId: string, audience: string): Promise<boolean> => policiesDao.remove(clientId, audience);

/** One page of rules, in (client, audience) order after the cursor `after` (the `next` of the page before). */
export async function page(limit: number, after?: string): Promise<{ policies: ExchangePolicyView[]; next: string | null }> {
  const found = await policiesDao.page(after, limit + 1);
  const shown = found.slice(0, limit);
  return { policies: shown.map(viewOf), next: found.length > limit ? shown[shown.length - 1]._id : null };
}

/** A client went: its rules go with it. */
export const endForClient = (clientId: string): Promise<void> => policiesDao.removeForClient(clientId);
