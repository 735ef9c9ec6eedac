// The admin API's people, applications, keys and events (docs/operations.md, "The admin API"), for
// access tokens with the admin scope; and the console's pages.
import { ADMIN_QUERIES, CONSOLE_QUERIES } from './admin.queries';
import { bodySchemaOf, queryParametersOf } from '../common/request-fields';
import { CSRF_FIELDS } from '../web/csrf';
import {
  CHANGE_APPLICATION_FORM,
  DELETE_POLICY_FORM,
  DOCUMENT_HOST_FORM,
  EXCHANGE_POLICY_FORM,
  FORGET_HOST_FORM,
  GIVE_ROLE_FORM,
  NEW_APPLICATION_FORM,
} from './console.fields';
import {
  adminBodyRefusals,
  adminRefusals,
  adminSecurity as security,
  empty,
  formRequest,
  json,
  jsonRequest,
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
import { CHANGEABLE_METADATA, CHANGEABLE_METADATA_FIELDS } from '../oauth/clients/registration.service';
import { ADMIN_API } from '../oauth/protocol';
import { CLAIMS_SCHEMA } from '../users/users.types';

const tags = ['Admin'];
const person = pathParam('id', "A person's id");
const notFound = json(ref('OAuthError'), 'not_found: no such person');
const badQuery = json(ref('OAuthError'), 'invalid_request: a bad limit, cursor or filter');
const change = (operationId: string, summary: string) => ({
  tags,
  operationId,
  summary,
  security,
  responses: { '204': empty('Done'), '404': notFound, ...adminRefusals },
});
const nullableText = { type: ['string', 'null'] };
const application = pathParam('clientId', 'A client id');
const noApplication = json(ref('OAuthError'), 'not_found: no such application');

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
      ...(parameters.some((parameter) => (parameter as { in?: string }).in === 'query') && {
        '400': page('A query value past its rule (a search over its length, an unknown kind)'),
      }),
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
    requestBody: formRequest(bodySchemaOf(CSRF_FIELDS)),
    responses: {
      '303': redirect(`${done}; to /login when not signed in`),
      '302': redirect('An older or one-factor session: to the step-up'),
      '403': page('Not an admin, no second factor, or a missing or wrong CSRF token'),
      '404': page('No such person or application'),
      '413': page('Body over 100 kB'),
      ...pageFaults,
    },
  },
});

/** A form of the agents page: its fields, a redirect back with a notice, or the page again saying what was refused. */
const agentsForm = (operationId: string, summary: string, fields: Parameters<typeof bodySchemaOf>[0]) => {
  const form = consoleForm(operationId, summary, 'To /admin/agents', []);
  return {
    ...form,
    post: {
      ...form.post,
      requestBody: formRequest(bodySchemaOf(fields)),
      responses: { ...form.post.responses, '400': page('The agents page again, saying what was refused'), '404': page('No such rule') },
    },
  };
};

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
    '/admin/people': consolePage(
      'consolePeople',
      'People, searched by the start of an email or name, a page at a time',
      queryParametersOf(CONSOLE_QUERIES.people),
    ),
    '/admin/people/{id}': {
      parameters: [person],
      ...consolePage(
        'consolePerson',
        'One person: their applications, recent events, and the forms that act on them',
        queryParametersOf(CONSOLE_QUERIES.person),
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
    '/admin/people/{id}/sessions/{handle}/end': consoleForm('consoleEndSession', 'Signs one browser of the person out', 'To the person', [
      person,
      pathParam('handle', "A session's handle (never its cookie)"),
    ]),
    '/admin/people/{id}/unlock': consoleForm('consoleUnlock', "Forgets the person's failed sign-ins", 'To the person'),
    '/admin/people/{id}/roles': {
      parameters: [person],
      post: {
        tags: consoleTags,
        operationId: 'consoleGiveRole',
        summary: 'Gives the person a role (admin, or one defined in the admin API); an event naming the admin',
        security: sessionAuth,
        requestBody: formRequest(bodySchemaOf(GIVE_ROLE_FORM)),
        responses: {
          '303': redirect('To the person; to /login when not signed in'),
          '302': redirect('An older or one-factor session: to the step-up'),
          '400': page('A role name that breaks the rule'),
          '403': page('Not an admin, no second factor, or a missing or wrong CSRF token'),
          '404': page('No such person or role'),
          '413': page('Body over 100 kB'),
          ...pageFaults,
        },
      },
    },
    '/admin/people/{id}/roles/{name}/take': consoleForm(
      'consoleTakeRole',
      'Takes a role from the person; an event naming the admin',
      'To the person',
      [person, pathParam('name', 'A role name')],
    ),
    '/admin/applications': consolePage(
      'consoleApplications',
      'Applications searched by the start of their name or client id, a page at a time, and the sign-in providers (read-only)',
      queryParametersOf(CONSOLE_QUERIES.applications),
    ),
    '/admin/applications/new': {
      ...consolePage('consoleNewApplication', 'The form that registers an application (every RFC 7591 field the server takes)'),
      post: {
        tags: consoleTags,
        operationId: 'consoleRegisterApplication',
        summary: 'Registers the application, owned by no person; the answer shows its secret, once',
        security: sessionAuth,
        requestBody: formRequest(bodySchemaOf(NEW_APPLICATION_FORM)),
        responses: {
          '201': page('The client id and secret, shown this once'),
          '400': page('The form again, saying what the registration refused'),
          '302': redirect('An older or one-factor session: to the step-up'),
          '303': redirect('Not signed in: to /login'),
          '403': page('Not an admin, no second factor, or a missing or wrong CSRF token'),
          '413': page('Body over 100 kB'),
          ...pageFaults,
        },
      },
    },
    '/admin/applications/{clientId}': {
      parameters: [application],
      ...consolePage(
        'consoleApplication',
        'One application: its registration, who has granted it (a page at a time), and the forms that change, re-key and delete it',
        queryParametersOf(CONSOLE_QUERIES.application),
        { '404': page('No such application') },
      ),
      post: {
        ...consoleForm('consoleChangeApplication', 'Saves the name, website, redirect URIs and grants', 'To the application', []).post,
        requestBody: formRequest(bodySchemaOf(CHANGE_APPLICATION_FORM)),
        responses: {
          ...consoleForm('consoleChangeApplication', '', 'To the application', []).post.responses,
          '400': page('The page again, saying what was refused'),
        },
      },
    },
    '/admin/applications/{clientId}/secret': {
      parameters: [application],
      post: {
        ...consoleForm('consoleRotateSecret', '', '', []).post,
        summary: 'Replaces the secret: the answer shows the new one, once; the old one stops working',
        responses: {
          ...consoleForm('consoleRotateSecret', '', 'Not signed in', []).post.responses,
          '200': page('The new secret, shown this once'),
        },
      },
    },
    '/admin/applications/{clientId}/delete': consoleForm(
      'consoleDeleteApplication',
      'Deletes the application with every token, code and consent issued to it',
      'To /admin/applications',
      [application],
    ),
    '/admin/agents': consolePage(
      'consoleAgents',
      'Agents: clients known by their metadata documents, the document hosts’ rules, the token exchange rules',
      queryParametersOf(CONSOLE_QUERIES.agents),
    ),
    '/admin/agents/hosts': agentsForm('consoleRuleDocumentHost', "Allows or blocks a host's metadata documents", DOCUMENT_HOST_FORM),
    '/admin/agents/hosts/forget': agentsForm('consoleForgetDocumentHost', "Forgets a host's rule", FORGET_HOST_FORM),
    '/admin/agents/exchange': agentsForm(
      'consoleSetExchangePolicy',
      "Sets a client's token exchange rule for an audience",
      EXCHANGE_POLICY_FORM,
    ),
    '/admin/agents/exchange/delete': agentsForm('consoleDeleteExchangePolicy', 'Deletes a token exchange rule', DELETE_POLICY_FORM),
    '/admin/keys': consolePage('consoleKeys', 'The signing keys, current and retired', queryParametersOf(CONSOLE_QUERIES.keys)),
    '/admin/keys/rotate': consoleForm('consoleRotateKeys', 'Makes new signing keys current', 'To /admin/keys', []),
    '/admin/events': consolePage(
      'consoleEvents',
      'Events, filtered by person, application and kind, newest first',
      queryParametersOf(CONSOLE_QUERIES.events),
    ),
    [ADMIN_API.people]: {
      get: {
        tags,
        operationId: 'listPeople',
        summary: 'People, in id order, a page at a time; q finds an email or a name by its start',
        security,
        parameters: queryParametersOf(ADMIN_QUERIES.people),
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
      get: {
        tags,
        operationId: 'personSessions',
        summary: "The person's signed-in browsers, most recently used first; more says whether others follow",
        security,
        parameters: queryParametersOf(ADMIN_QUERIES.sessions),
        responses: { '200': json(ref('SessionList'), 'The browsers'), '400': badQuery, '404': notFound, ...adminRefusals },
      },
      delete: change('endPersonSessions', 'Signs every browser of the person out now (applications hear by back-channel logout)'),
    },
    [`${ADMIN_API.people}/{id}/sessions/{handle}`]: {
      parameters: [person, pathParam('handle', "A session's handle from the list (never its cookie)")],
      delete: {
        ...change('endPersonSession', 'Signs one browser of the person out now'),
        responses: { '204': empty('Done'), '404': json(ref('OAuthError'), 'not_found: no such person or session'), ...adminRefusals },
      },
    },
    [`${ADMIN_API.people}/{id}/reset-link`]: {
      parameters: [person],
      post: {
        tags,
        operationId: 'sendPersonResetLink',
        summary: 'Mails the person a password reset link (the forgotten-password mail, with its limits)',
        security,
        responses: {
          '202': empty('The mail is on its way'),
          '400': json(ref('OAuthError'), 'invalid_request: the person has no email address'),
          '404': notFound,
          '429': json(ref('OAuthError'), 'too_many_requests: the reset links of this person are spent for now (Retry-After)'),
          ...adminRefusals,
        },
      },
    },
    [`${ADMIN_API.people}/{id}/factors`]: {
      parameters: [person],
      delete: change('resetPersonFactors', 'Removes the authenticator app and passkeys: the person enrols again'),
    },
    [`${ADMIN_API.people}/{id}/unlock`]: {
      parameters: [person],
      post: {
        tags,
        operationId: 'unlockPerson',
        summary: "Forgets the account's failed sign-ins from every address, so its owner can sign in at once",
        security,
        responses: {
          '200': json(
            { type: 'object', required: ['failures_forgotten'], properties: { failures_forgotten: { type: 'integer', minimum: 0 } } },
            'How many failed sign-ins were forgotten',
          ),
          '404': notFound,
          ...adminRefusals,
        },
      },
    },
    [ADMIN_API.applications]: {
      get: {
        tags,
        operationId: 'listApplications',
        summary: 'Applications, in client id order, a page at a time; q finds a name (any case) or client id by its start',
        security,
        parameters: queryParametersOf(ADMIN_QUERIES.applications),
        responses: { '200': json(ref('ApplicationPage'), 'One page; next is null on the last'), '400': badQuery, ...adminRefusals },
      },
      post: {
        tags,
        operationId: 'registerApplication',
        summary: 'Registers an application as RFC 7591 does, owned by no person; the secret is in this answer only',
        security,
        requestBody: jsonRequest(ref('ClientMetadataRequest')),
        responses: {
          '201': json(ref('ClientMetadata'), 'The registration, with client_secret (confidential clients) and registration_access_token'),
          '400': json(ref('OAuthError'), 'invalid_client_metadata or invalid_redirect_uri, naming the field'),
          // The body's own refusals (the OAuth shape) over the generic 413 and 415.
          ...adminRefusals,
          ...adminBodyRefusals,
        },
      },
    },
    [`${ADMIN_API.applications}/{clientId}`]: {
      parameters: [application],
      get: {
        tags,
        operationId: 'showApplication',
        summary: "An application's registration under RFC 7591's names (never its secret)",
        security,
        responses: { '200': json(ref('ClientMetadata'), 'The registration'), '404': noApplication, ...adminRefusals },
      },
      patch: {
        tags,
        operationId: 'changeApplication',
        summary: `Changes ${CHANGEABLE_METADATA.join(', ')}, each checked as a registration checks it (an operator may also give the password grant)`,
        security,
        requestBody: jsonRequest({ ...bodySchemaOf(CHANGEABLE_METADATA_FIELDS), minProperties: 1, additionalProperties: false }),
        responses: {
          '200': json(ref('ClientMetadata'), 'The registration as it is now'),
          '400': json(ref('OAuthError'), 'invalid_client_metadata or invalid_redirect_uri, naming the field'),
          '404': noApplication,
          // The body's own refusals (the OAuth shape) over the generic 413 and 415.
          ...adminRefusals,
          ...adminBodyRefusals,
        },
      },
      delete: {
        ...change('deleteApplication', 'Deletes the application with every token, code and consent issued to it'),
        responses: { '204': empty('Done'), '404': noApplication, ...adminRefusals },
      },
    },
    [`${ADMIN_API.applications}/{clientId}/secret`]: {
      parameters: [application],
      post: {
        tags,
        operationId: 'rotateApplicationSecret',
        summary: 'A new secret, in this answer only; the old one is refused at once (within a second on other instances)',
        security,
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['client_id', 'client_secret'],
              properties: { client_id: str, client_secret: str },
              additionalProperties: false,
            },
            'The new secret',
          ),
          '400': json(ref('OAuthError'), 'invalid_request: a public client, or one that signs with its keys, has no secret'),
          '404': noApplication,
          ...adminRefusals,
        },
      },
    },
    [`${ADMIN_API.applications}/{clientId}/grants`]: {
      parameters: [application],
      get: {
        tags,
        operationId: 'applicationGrants',
        summary: 'Who has granted the application what, in person order, a page at a time',
        security,
        parameters: queryParametersOf(ADMIN_QUERIES.grants),
        responses: {
          '200': json(ref('ApplicationGrantPage'), 'One page; next is null on the last'),
          '400': badQuery,
          '404': noApplication,
          ...adminRefusals,
        },
      },
    },
    [ADMIN_API.keys]: {
      get: {
        tags,
        operationId: 'listKeys',
        summary: 'The published signing keys: current, or retired and published until what they signed has expired',
        security,
        responses: { '200': json(ref('SigningKeyList'), 'The keys, newest first'), ...adminRefusals },
      },
    },
    [`${ADMIN_API.keys}/rotate`]: {
      post: {
        tags,
        operationId: 'rotateKeys',
        summary: 'Makes new keys current (every instance signs with them within a minute); the old ones stay published',
        security,
        responses: { '200': json(ref('SigningKeyList'), 'The keys after the rotation'), ...adminRefusals },
      },
    },
    [ADMIN_API.events]: {
      get: {
        tags,
        operationId: 'listEvents',
        summary: 'What happened across accounts in the last 90 days, and what operators did, newest first',
        security,
        parameters: queryParametersOf(ADMIN_QUERIES.events),
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
          required: ['claims', 'factors'],
          properties: {
            claims: { ...CLAIMS_SCHEMA, description: 'The OpenID Connect claims the person shares (docs/oauth.md, Claims)' },
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
        person: { ...nullableText, description: 'null for an operator change to an application or the keys' },
        address: str,
        detail: nullableText,
        actor: { ...nullableText, description: '`client:<id>` when an operator client acted on the account' },
        application: nullableText,
      },
      additionalProperties: false,
    },
    SessionList: {
      type: 'object',
      required: ['sessions', 'more'],
      properties: {
        sessions: {
          type: 'array',
          items: {
            type: 'object',
            required: ['handle', 'device', 'address', 'signed_in_at', 'last_seen_at'],
            properties: {
              handle: str,
              device: str,
              address: str,
              signed_in_at: { type: ['string', 'null'], format: 'date-time' },
              last_seen_at: { type: 'string', format: 'date-time' },
            },
            additionalProperties: false,
          },
        },
        more: { type: 'boolean' },
      },
      additionalProperties: false,
    },
    ApplicationSummary: {
      type: 'object',
      required: [
        'client_id',
        'name',
        'website',
        'redirect_uri',
        'grants',
        'redirect_uris',
        'token_endpoint_auth_method',
        'dynamically_registered',
        'owner_id',
        'created_at',
      ],
      properties: {
        client_id: str,
        name: str,
        website: str,
        redirect_uri: str,
        grants: { type: 'array', items: ref('Grant') },
        redirect_uris: { type: 'array', items: str },
        token_endpoint_auth_method: str,
        dynamically_registered: { type: 'boolean' },
        owner_id: nullableText,
        created_at: { type: 'string', format: 'date-time' },
        operator_access: { type: 'boolean' },
      },
      additionalProperties: false,
    },
    ApplicationPage: {
      type: 'object',
      required: ['applications', 'next'],
      properties: { applications: { type: 'array', items: ref('ApplicationSummary') }, next: nullableText },
      additionalProperties: false,
    },
    ApplicationGrantPage: {
      type: 'object',
      required: ['grants', 'next'],
      properties: {
        grants: {
          type: 'array',
          items: {
            type: 'object',
            required: ['person_id', 'email', 'scope', 'first_granted_at', 'last_used_at'],
            properties: {
              person_id: str,
              email: nullableText,
              scope: { type: 'array', items: str },
              first_granted_at: { type: 'string', format: 'date-time' },
              last_used_at: { type: 'string', format: 'date-time' },
            },
            additionalProperties: false,
          },
        },
        next: nullableText,
      },
      additionalProperties: false,
    },
    SigningKeyList: {
      type: 'object',
      required: ['keys'],
      properties: {
        keys: {
          type: 'array',
          items: {
            type: 'object',
            required: ['kid', 'alg', 'state', 'created_at'],
            properties: {
              kid: str,
              alg: str,
              state: { type: 'string', enum: ['current', 'retired'] },
              created_at: { type: 'string', format: 'date-time' },
              retired_at: { type: 'string', format: 'date-time' },
              published_until: { type: 'string', format: 'date-time' },
            },
            additionalProperties: false,
          },
        },
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
