// The admin API's query parameters, each operation's declared once (common/request-fields.ts): what its
// controller reads and what the reference states (admin.openapi.ts) come from the same fields.
import { limitField, onPage, oneOfField, textField, timeField } from '../common/request-fields';
import { ACTIVITY_KINDS } from '../account/activity.service';
import { LIMITS } from '../oauth/protocol';
import { MAX_QUERY_LENGTH } from './admin.service';
import { AGENT_QUERIES } from './agents.fields';

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

const pageText = (description: string) => onPage(text(description));
const pageAfter = onPage(after);
/** The change a console form just made, named by its redirect: a notice says so (an unknown one shows none). */
const done = onPage(textField('The change just made, for its notice', 40));

/** Each console page that takes a query (its links and its search forms send them). */
export const CONSOLE_QUERIES = {
  people: { q: pageText('The start of an email, first or last name'), after: pageAfter, done },
  person: { done },
  applications: { q: pageText('The start of a name or client id'), after: pageAfter, done },
  application: { after: pageAfter, done },
  keys: { done },
  agents: {
    q: pageText('The start of a document client’s URL'),
    after: pageAfter,
    // The admin API's cursors of the same lists.
    hosts_after: onPage(AGENT_QUERIES.hosts.after),
    rules_after: onPage(AGENT_QUERIES.policies.after),
    done,
  },
  events: {
    person: pageText("A person's id"),
    application: pageText('A client id: what it did or concerned'),
    kind: onPage(oneOfField(ACTIVITY_KINDS)),
    after: pageAfter,
  },
} as const;
