// The admin API's and the console's fields for agents' rules: written once, read by the controllers,
// stated by the OpenAPI document.
import { limitField, oneOfField, textField } from '../common/request-fields';
import { HOST_RULES } from '../oauth/clients/client-documents.service';
import { LIMITS } from '../oauth/protocol';
import { CLIENT_ID_LENGTH, EXCHANGE_POLICIES_QUERY } from '../oauth/exchange/exchange.service';

export const AGENT_QUERIES = {
  policies: EXCHANGE_POLICIES_QUERY,
  policy: {
    client_id: textField('The client of the rule', CLIENT_ID_LENGTH),
    audience: textField('The audience of the rule', LIMITS.redirectUriLength),
  },
  documentClients: {
    q: textField('Only clients whose URL starts with this', LIMITS.redirectUriLength),
    limit: limitField(LIMITS.pageSize),
    after: textField('The `next` of the previous page', LIMITS.redirectUriLength),
  },
  hosts: {
    limit: limitField(LIMITS.pageSize),
    after: textField('The `next` of the previous page', 300),
  },
} as const;

/** PUT /admin/api/document-hosts/{host}'s body. */
export const DOCUMENT_HOST_RULE = {
  fields: {
    rule: oneOfField(HOST_RULES, 'allow: documents from this host are taken (CLIENT_ID_DOCUMENTS=allowed needs it); block: never'),
  },
  required: ['rule'],
} as const;
