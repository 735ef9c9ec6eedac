// The admin API's people and events (docs/operations.md, "The admin API"), for access tokens with the admin scope.
import {
  adminRefusals,
  adminSecurity as security,
  empty,
  formRequest,
  json,
  page,
  pageFaults,
  pathParam,
  redirect,
  ref,
  sessionAuth,
  str,
  type OpenApiFragment,
} from '../openapi/openapi.kit';
import { ACTIVITY_KINDS } from '../account/activity.service';
import { ADMIN_API, LIMITS } from '../oauth/protocol';

const tags = ['Admin'];
const person = pathParam('id', "A person's id");
const notFound = json(ref('OAuthError'), 'not_found: no such person');
const badQuery = json(ref('OAuthError'), 'invalid_request: a bad limit, cursor or filter');
const limit = { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: LIMITS.pageSize } };
const query = (name: string, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', maxLength: 100 },
});
const change = (operationId: string, summary: string) => ({
  tags,
  operationId,
  summary,
  security,
  responses: { '204': empty('Done'), '404': notFound, ...adminRefusals },
});
const nullableText = { type: ['string', 'null'] };

const consoleTags = ['Operator console'];
/** A console page: for people with the admin role and a second factor from the last 10 minutes. */
const consolePage = (operationId: string, summary: string, parameters: unknown[] = [], extra: Record<string, unknown> = {}) => ({
  get: {
    tags: consoleTags,
    operationId,
    summary,
    security: sessionAuth,
    parameters,
    responses: {
      '200': page('The page'),
      '302': redirect('Not signed in: to /login; an older or one-factor session: to the step-up, back here after'),
      '403': page('Not an admin, or an admin without a second factor'),
      ...extra,
      ...pageFaults,
    },
  },
});
const consoleForm = (operationId: string, summary: string, done: string, parameters: unknown[] = [person]) => ({
  parameters,
  post: {
    tags: consoleTags,
    operationId,
    summary,
    security: sessionAuth,
    requestBody: formRequest({ type: 'object', properties: { _csrf: str } }),
    responses: {
      '303': redirect(`${done}; to /login when not signed in`),
      '302': redirect('An older or one-factor session: to the step-up'),
      '403': page('Not an admin, no second factor, or a missing or wrong CSRF token'),
      '404': page('No such person'),
      '413': page('Body over 100 kB'),
      ...pageFaults,
    },
  },
});
const pageQuery = (name: string) => ({ name, in: 'query', required: false, schema: { type: 'string' } });

export const adminOpenApi: OpenApiFragment = {
  paths: {
    '/admin': {
      get: {
        tags: consoleTags,
        operationId: 'consoleHome',
        summary: 'The console: to /admin/people',
        security: sessionAuth,
        responses: {
          '302': redirect('To /admin/people (or, as for every console page, to /login or the step-up first)'),
          '403': page('Not an admin, or no second factor'),
          ...pageFaults,
        },
      },
    },
    '/admin/people': consolePage('consolePeople', 'People, searched by the start of an email or name, a page at a time', [
      pageQuery('q'),
      pageQuery('after'),
    ]),
    '/admin/people/{id}': {
      parameters: [person],
      ...consolePage(
        'consolePerson',
        'One person: their applications, recent events, and the forms that act on them',
        [pageQuery('done')],
        {
          '404': page('No such person'),
        },
      ),
    },
    '/admin/people/{id}/sessions/end': consoleForm('consoleEndSessions', 'Signs every browser of the person out', 'To the person'),
    '/admin/people/{id}/factors/reset': consoleForm('consoleResetFactors', "Removes the person's second factors", 'To the person'),
    '/admin/people/{id}/disable': consoleForm('consoleDisable', 'Disables the account', 'To the person'),
    '/admin/people/{id}/enable': consoleForm('consoleEnable', 'Enables the account', 'To the person'),
    '/admin/people/{id}/applications/{clientId}/revoke': consoleForm(
      'consoleRevokeApplication',
      "Forgets the person's consent for the application and ends its tokens",
      'To the person',
      [person, pathParam('clientId', 'A client id')],
    ),
    '/admin/people/{id}/reset-link': consoleForm('consoleSendResetLink', 'Mails the person a reset link', 'To the person'),
    '/admin/people/{id}/delete': consoleForm('consoleDeletePerson', 'Deletes the person', 'To /admin/people'),
    '/admin/applications': consolePage('consoleApplications', 'Applications a page at a time, and the sign-in providers (read-only)', [
      pageQuery('after'),
    ]),
    '/admin/keys': consolePage('consoleKeys', 'The signing keys, current and retired', [pageQuery('done')]),
    '/admin/keys/rotate': consoleForm('consoleRotateKeys', 'Makes new signing keys current', 'To /admin/keys', []),
    '/admin/events': consolePage('consoleEvents', 'Events, filtered by person and kind, newest first', [
      pageQuery('person'),
      pageQuery('kind'),
      pageQuery('after'),
    ]),
    [ADMIN_API.people]: {
      get: {
        tags,
        operationId: 'listPeople',
        summary: 'People, in id order, a page at a time; q finds an email or a name by its start',
        security,
        parameters: [query('q', 'The start of an email, first or last name'), limit, query('after', 'The `next` of the previous page')],
        responses: { '200': json(ref('PeoplePage'), 'One page; next is null on the last'), '400': badQuery, ...adminRefusals },
      },
    },
    [`${ADMIN_API.people}/{id}/applications`]: {
      get: {
        tags,
        operationId: 'personApplications',
        summary: 'The applications the person allowed',
        security,
        parameters: [person],
        responses: { '200': json(ref('PersonApplications'), 'The applications'), '404': notFound, ...adminRefusals },
      },
    },
    [`${ADMIN_API.people}/{id}/applications/{clientId}`]: {
      parameters: [person, pathParam('clientId', 'A client id')],
      delete: {
        ...change('revokePersonApplication', "Forgets the person's consent for the application and ends its tokens"),
        responses: {
          '204': empty('Done'),
          '404': json(ref('OAuthError'), 'not_found: no such person or connected application'),
          ...adminRefusals,
        },
      },
    },
    [`${ADMIN_API.people}/{id}`]: {
      parameters: [person],
      get: {
        tags,
        operationId: 'showPerson',
        summary: 'A person, with their roles and second factors',
        security,
        responses: { '200': json(ref('PersonDetail'), 'The person'), '404': notFound, ...adminRefusals },
      },
      delete: change('deletePerson', 'Deletes the person: every session, token and grant ends'),
    },
    [`${ADMIN_API.people}/{id}/disable`]: {
      parameters: [person],
      post: change('disablePerson', 'Disables the account: it signs in nowhere, and its sessions and tokens end now'),
    },
    [`${ADMIN_API.people}/{id}/enable`]: { parameters: [person], post: change('enablePerson', 'Lets a disabled account sign in again') },
    [`${ADMIN_API.people}/{id}/sessions`]: {
      parameters: [person],
      delete: change('endPersonSessions', 'Signs every browser of the person out now (applications hear by back-channel logout)'),
    },
    [`${ADMIN_API.people}/{id}/factors`]: {
      parameters: [person],
      delete: change('resetPersonFactors', 'Removes the authenticator app and passkeys: the person enrols again'),
    },
    [ADMIN_API.events]: {
      get: {
        tags,
        operationId: 'listEvents',
        summary: 'What happened across accounts in the last 90 days, and what operators did, newest first',
        security,
        parameters: [
          query('person', "A person's id"),
          query('application', 'A client id: what it did or concerned'),
          { name: 'kind', in: 'query', required: false, schema: { type: 'string', enum: [...ACTIVITY_KINDS] } },
          query('since', 'ISO 8601: only after this time'),
          query('until', 'ISO 8601: only up to this time'),
          limit,
          query('after', 'The `next` of the previous page'),
        ],
        responses: { '200': json(ref('EventPage'), 'One page; next is null on the last'), '400': badQuery, ...adminRefusals },
      },
    },
  },
  schemas: {
    Person: {
      type: 'object',
      required: ['id', 'email', 'emailVerified', 'firstName', 'lastName', 'roles', 'disabled'],
      properties: {
        id: str,
        email: nullableText,
        emailVerified: { type: 'boolean' },
        firstName: nullableText,
        lastName: nullableText,
        roles: { type: 'array', items: str },
        disabled: { type: 'boolean' },
      },
    },
    PersonDetail: {
      allOf: [
        ref('Person'),
        {
          type: 'object',
          required: ['factors'],
          properties: {
            factors: {
              type: 'object',
              required: ['totp', 'passkeys'],
              properties: { totp: { type: 'boolean' }, passkeys: { type: 'boolean' } },
            },
          },
        },
      ],
    },
    PersonApplications: {
      type: 'object',
      required: ['applications'],
      properties: { applications: { type: 'array', items: ref('ConnectedApplication') } },
      additionalProperties: false,
    },
    PeoplePage: {
      type: 'object',
      required: ['people', 'next'],
      properties: { people: { type: 'array', items: ref('Person') }, next: nullableText },
      additionalProperties: false,
    },
    Event: {
      type: 'object',
      required: ['id', 'at', 'kind', 'person', 'address', 'detail', 'actor', 'application'],
      properties: {
        id: str,
        at: { type: 'string', format: 'date-time' },
        kind: { type: 'string', enum: [...ACTIVITY_KINDS] },
        person: str,
        address: str,
        detail: nullableText,
        actor: { ...nullableText, description: '`client:<id>` when an operator client acted on the account' },
        application: nullableText,
      },
      additionalProperties: false,
    },
    EventPage: {
      type: 'object',
      required: ['events', 'next'],
      properties: { events: { type: 'array', items: ref('Event') }, next: nullableText },
      additionalProperties: false,
    },
  },
};
