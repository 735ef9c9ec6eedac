// The operator's token exchange rules (RFC 8693, docs/oauth.md "Token exchange"): which client may
// exchange a person's token for what. One rule per client and target, found by its `_id`.
import { Schema, model } from 'mongoose';
import type { EXCHANGE_TOKEN_TYPES, EXCHANGE_SUBJECTS } from './exchange.types';

export interface ExchangePolicyDocument {
  /** `<client_id> <audience>`: the one rule for that pair. */
  _id: string;
  clientId: string;
  /**
   * What the client may ask for: a resource registered here (or this server's issuer, its own APIs)
   * for access tokens; for ID-JAGs, the issuer of the authorization server they are for.
   */
  audience: string;
  tokenType: (typeof EXCHANGE_TOKEN_TYPES)[number];
  /** The most the new token may carry; never more than the subject token has either. */
  scopes: string[];
  /** `own`: only tokens issued to this client; `any`: tokens issued to any client (a resource server's). */
  subjects: (typeof EXCHANGE_SUBJECTS)[number];
  /** For ID-JAGs: the client's id at the authorization server they are for (their `client_id` claim). */
  targetClientId?: string;
  createdAt: Date;
}

const exchangePolicySchema = new Schema<ExchangePolicyDocument>(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    audience: { type: String, required: true },
    tokenType: { type: String, required: true },
    scopes: { type: [String], required: true },
    subjects: { type: String, required: true },
    targetClientId: { type: String },
    createdAt: { type: Date, required: true },
  },
  { collection: 'exchange_policies', versionKey: false },
);

export const ExchangePolicyModel = model<ExchangePolicyDocument>('ExchangePolicy', exchangePolicySchema);
