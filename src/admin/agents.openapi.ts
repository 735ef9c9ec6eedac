// The admin API's rules for agents: token exchange rules, document clients and document hosts.
import { bodySchemaOf, queryParametersOf } from '../common/request-fields';
import {
  adminBodyRefusals,
  adminRefusals,
  adminSecurity,
  empty,
  int,
  json,
  jsonRequest,
  pathParam,
  ref,
  str,
  type OpenApiFragment,
} from '../openapi/openapi.kit';
import { HOST_RULES } from '../oauth/clients/client-documents.service';
import { ADMIN_API } from '../oauth/protocol';
import { AGENT_QUERIES, DOCUMENT_HOST_RULE } from './agents.fields';
import { EXCHANGE_POLICY, EXCHANGE_SUBJECTS, EXCHANGE_TOKEN_TYPES } from '../oauth/exchange/exchange.service';

const security = adminSecurity;
const refusals = adminRefusals;
const badQuery = json(ref('OAuthError'), 'invalid_request: a bad limit or after');
const pageOf = (items: string, schema: string) => ({
  type: 'object',
  required: [items, 'next'],
  properties: { [items]: { type: 'array', items: ref(schema) }, next: { type: ['string', 'null'] } },
  additionalProperties: false,
});

export const agentsOpenApi: OpenApiFragment = {
  paths: {
    [ADMIN_API.exchangePolicies]: {
      get: {
        tags: ['Admin'],
        operationId: 'listExchangePolicies',
        summary: 'The token exchange rules, in client and audience order, a page at a time',
        security,
        parameters: queryParametersOf(AGENT_QUERIES.policies),
        responses: { '200': json(ref('ExchangePolicyPage'), 'One page; next is null on the last'), '400': badQuery, ...refusals },
      },
      put: {
        tags: ['Admin'],
        operationId: 'setExchangePolicy',
        summary: "Sets a client's rule for one audience (replacing it): what it may get by token exchange",
        security,
        requestBody: jsonRequest(ref('NewExchangePolicy'), {
          client_id: 'agent-client',
          audience: 'https://orders.example.com/api',
          scopes: ['orders:read'],
        }),
        responses: {
          '200': json(ref('ExchangePolicy'), 'Set'),
          '400': json(ref('OAuthError'), 'invalid_request: what is wrong with the rule, or a body that is not JSON'),
          '403': json(ref('OAuthError'), `access_denied: the cap on rules is reached`),
          ...refusals,
          ...adminBodyRefusals,
        },
      },
      delete: {
        tags: ['Admin'],
        operationId: 'deleteExchangePolicy',
        summary: 'Deletes a rule: the client may no longer exchange for that audience',
        security,
        parameters: queryParametersOf(AGENT_QUERIES.policy),
        responses: {
          '204': empty('Deleted'),
          '400': json(ref('OAuthError'), 'invalid_request: client_id and audience are required'),
          '404': json(ref('OAuthError'), 'not_found'),
          ...refusals,
        },
      },
    },
    [ADMIN_API.documentClients]: {
      get: {
        tags: ['Admin'],
        operationId: 'listDocumentClients',
        summary: 'Clients known by their metadata documents that got a token here, in URL order, a page at a time',
        security,
        parameters: queryParametersOf(AGENT_QUERIES.documentClients),
        responses: { '200': json(ref('DocumentClientPage'), 'One page; next is null on the last'), '400': badQuery, ...refusals },
      },
    },
    [ADMIN_API.documentHosts]: {
      get: {
        tags: ['Admin'],
        operationId: 'listDocumentHosts',
        summary: 'The hosts whose metadata documents are allowed or blocked, in host order',
        security,
        parameters: queryParametersOf(AGENT_QUERIES.hosts),
        responses: { '200': json(ref('DocumentHostPage'), 'One page; next is null on the last'), '400': badQuery, ...refusals },
      },
    },
    [`${ADMIN_API.documentHosts}/{host}`]: {
      put: {
        tags: ['Admin'],
        operationId: 'ruleDocumentHost',
        summary: "Allows or blocks a host's metadata documents; every instance forgets the documents it kept",
        security,
        parameters: [pathParam('host', 'The host, lower case, with its port when not 443')],
        requestBody: jsonRequest(ref('DocumentHostRule'), { rule: 'block' }),
        responses: {
          '200': json(ref('DocumentHost'), 'Set'),
          '400': json(ref('OAuthError'), 'invalid_request: not a host, or a rule other than allow or block'),
          ...refusals,
          ...adminBodyRefusals,
        },
      },
      delete: {
        tags: ['Admin'],
        operationId: 'forgetDocumentHost',
        summary: 'Forgets a host’s rule: CLIENT_ID_DOCUMENTS decides for it again',
        security,
        parameters: [pathParam('host', 'The host, lower case, with its port when not 443')],
        responses: {
          '204': empty('Forgotten'),
          '400': json(ref('OAuthError'), 'invalid_request: not a host'),
          '404': json(ref('OAuthError'), 'not_found'),
          ...refusals,
        },
      },
    },
  },
  schemas: {
    ExchangePolicy: {
      type: 'object',
      required: ['client_id', 'audience', 'token_type', 'scopes', 'subjects', 'created_at'],
      properties: {
        client_id: str,
        audience: str,
        token_type: { type: 'string', enum: [...EXCHANGE_TOKEN_TYPES] },
        scopes: { type: 'array', items: str },
        subjects: { type: 'string', enum: [...EXCHANGE_SUBJECTS] },
        target_client_id: str,
        created_at: { type: 'string', format: 'date-time' },
      },
      additionalProperties: false,
    },
    NewExchangePolicy: bodySchemaOf(EXCHANGE_POLICY.fields, EXCHANGE_POLICY.required),
    ExchangePolicyPage: pageOf('policies', 'ExchangePolicy'),
    DocumentClient: {
      type: 'object',
      required: ['client_id', 'host', 'name', 'first_seen', 'last_seen', 'grants'],
      properties: {
        client_id: str,
        host: str,
        name: str,
        first_seen: { type: 'string', format: 'date-time' },
        last_seen: { type: 'string', format: 'date-time' },
        grants: { ...int, description: 'How many people granted it something' },
      },
      additionalProperties: false,
    },
    DocumentClientPage: pageOf('clients', 'DocumentClient'),
    DocumentHost: {
      type: 'object',
      required: ['host', 'rule', 'at'],
      properties: { host: str, rule: { type: 'string', enum: [...HOST_RULES] }, at: { type: 'string', format: 'date-time' } },
      additionalProperties: false,
    },
    DocumentHostRule: bodySchemaOf(DOCUMENT_HOST_RULE.fields, DOCUMENT_HOST_RULE.required),
    DocumentHostPage: pageOf('hosts', 'DocumentHost'),
  },
};
