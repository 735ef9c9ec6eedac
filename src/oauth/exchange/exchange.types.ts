// The words of the operator's token exchange rules, shared by the rules' model, service and pages.

/** What a rule lets a client get: an access token (RFC 8693) or an ID-JAG for another authorization server. */
export const EXCHANGE_TOKEN_TYPES = ['access_token', 'id-jag'] as const;
export type ExchangeTokenType = (typeof EXCHANGE_TOKEN_TYPES)[number];

/** Whose tokens a rule lets the client exchange. */
export const EXCHANGE_SUBJECTS = ['own', 'any'] as const;

/** A rule as the admin API and the console show it. */
export interface ExchangePolicyView {
  client_id: string;
  audience: string;
  token_type: ExchangeTokenType;
  scopes: string[];
  subjects: (typeof EXCHANGE_SUBJECTS)[number];
  target_client_id?: string;
  created_at: string;
}
