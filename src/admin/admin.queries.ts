// The admin API's query parameters, each operation's declared once (common/query-rules.ts): what its
// controller reads and what the reference states (admin.openapi.ts) come from the same fields.
import { limitField, oneOfField, textField, timeField } from '../common/query-rules';
import { ACTIVITY_KINDS } from '../account/activity.service';
import { LIMITS } from '../oauth/protocol';
import { MAX_QUERY_LENGTH } from './admin.service';

const text = (description: string) => textField(description, MAX_QUERY_LENGTH);
const limit = limitField(LIMITS.pageSize);
const after = text('The `next` of the previous page');

/** Each admin API operation that takes a query, by its parameters. */
export const ADMIN_QUERIES = {
  people: { q: text('The start of an email, first or last name'), limit, after },
  sessions: { limit },
  applications: { q: text('The start of a name or client id'), limit, after },
  grants: { limit, after },
  events: {
    person: text("A person's id"),
    application: text('A client id: what it did or concerned'),
    kind: oneOfField(ACTIVITY_KINDS),
    since: timeField('ISO 8601: only after this time', MAX_QUERY_LENGTH),
    until: timeField('ISO 8601: only up to this time', MAX_QUERY_LENGTH),
    limit,
    after,
  },
} as const;
