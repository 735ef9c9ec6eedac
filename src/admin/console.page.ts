// The operator's console (docs/operations.md, "The console"): people, one person, applications,
// keys and events, server-rendered with the layout kit like every other page.
import { html, type SafeHtml } from '../web/html';
import { csrfField, layout } from '../web/layout';

export interface PersonRow {
  id: string;
  email: string | null;
  name: string;
  roles: string[];
  disabled: boolean;
}

const NAV = [
  ['/admin/people', 'People'],
  ['/admin/applications', 'Applications'],
  ['/admin/agents', 'Agents'],
  ['/admin/keys', 'Keys'],
  ['/admin/events', 'Events'],
] as const;

function consolePage(title: string, current: string, body: SafeHtml, notice?: string): string {
  return layout(
    title,
    html`<nav aria-label="Console"><ul class="providers row">${NAV.map(([href, label]) =>
      href === current ? html`<li><strong aria-current="page">${label}</strong></li>` : html`<li><a href="${href}">${label}</a></li>`,
    )}</ul></nav>
<h1>${title}</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${body}`,
    { wide: true },
  );
}

/** The registration's names (RFC 7591, OIDC) in words. */
const DETAIL_NAMES: Record<string, string> = {
  client_id_issued_at: 'Registered',
  client_secret_expires_at: 'Secret expires',
  response_types: 'Response types',
  post_logout_redirect_uris: 'After sign-out',
  jwks: 'Keys',
  jwks_uri: 'Keys at',
  logo_uri: 'Logo',
  policy_uri: 'Privacy policy',
  tos_uri: 'Terms of service',
  initiate_login_uri: 'Sign-ins start at',
  backchannel_logout_uri: 'Back-channel logout',
  require_pushed_authorization_requests: 'Requests must be pushed',
  require_signed_request_object: 'Requests must be signed',
  fapi_profile: 'FAPI profile',
};

const next = (href: string | null) => (href ? html`<p><a href="${href}">Next page</a></p>` : '');
const when = (date: Date, seconds = false) =>
  html`<time datetime="${date.toISOString()}">${date
    .toISOString()
    .slice(0, seconds ? 19 : 16)
    .replace('T', ' ')} UTC</time>`;

export function peoplePage(view: { q: string; people: PersonRow[]; next: string | null; notice?: string }): string {
  return consolePage(
    'People',
    '/admin/people',
    html`<form method="get" action="/admin/people" class="row" role="search">
<label for="q" class="visually-hidden">Email or name starts with</label>
<input id="q" name="q" type="text" value="${view.q}" placeholder="Email or name starts with" maxlength="100">
<button type="submit">Search</button>
</form>
${
  view.people.length === 0
    ? html`<p>Nobody found.</p>`
    : html`<ul class="apps">${view.people.map(
        (person) =>
          html`<li><a href="/admin/people/${person.id}">${person.email ?? person.id}</a>${person.name ? html` · ${person.name}` : ''}${
            person.roles.length ? html` · roles: ${person.roles.join(', ')}` : ''
          }${person.disabled ? html` · <strong>disabled</strong>` : ''}</li>`,
      )}</ul>`
}
${next(view.next)}`,
    view.notice,
  );
}

export interface PersonView extends PersonRow {
  emailVerified: boolean;
  /** The OpenID Connect claims the person shares, flattened to name and value. */
  claims: [string, string][];
  sessions: { handle: string; device: string; address: string; lastSeenAt: Date }[];
  moreSessions: boolean;
  factors: { totp: boolean; passkeys: boolean };
  applications: { clientId: string; name: string; scope: string[] }[];
  events: EventRow[];
  /** The roles the person could be given (defined ones and admin, less those held). */
  givable: string[];
  csrfToken: string;
  notice?: string;
}

const action = (csrfToken: string, path: string, label: string, secondary = true) => html`<form method="post" action="${path}">
${csrfField(csrfToken)}
<button type="submit"${secondary ? html` class="secondary"` : ''}>${label}</button>
</form>`;

export function personPage(view: PersonView): string {
  const base = `/admin/people/${view.id}`;
  const factors = [view.factors.totp ? 'authenticator app' : '', view.factors.passkeys ? 'passkeys' : ''].filter(Boolean);
  return consolePage(
    view.email ?? view.id,
    '/admin/people',
    html`<p>${view.name || 'No name'} · ${view.email ? html`${view.email} (${view.emailVerified ? 'verified' : 'not verified'})` : 'no email'}</p>
<p>Second factors: ${factors.length ? factors.join(' and ') : 'none'} · ${view.disabled ? html`<strong>Disabled</strong>` : 'Active'}</p>
<div class="row">
${action(view.csrfToken, `${base}/sessions/end`, 'End all sessions')}
${action(view.csrfToken, `${base}/factors/reset`, 'Reset second factors')}
${action(view.csrfToken, `${base}/${view.disabled ? 'enable' : 'disable'}`, view.disabled ? 'Enable' : 'Disable', false)}
</div>
${view.email ? html`<div class="row">${action(view.csrfToken, `${base}/reset-link`, 'Send a reset link')}${action(view.csrfToken, `${base}/unlock`, 'Unlock sign-in')}</div>` : ''}
<h2>Roles</h2>
${
  view.roles.length === 0
    ? html`<p>None.</p>`
    : html`<ul class="apps">${view.roles.map(
        (role) => html`<li><form method="post" action="${base}/roles/${role}/take" class="row">
${csrfField(view.csrfToken)}
<span>${role}</span>
<button type="submit" class="secondary" aria-label="Take ${role} away">Take away</button>
</form></li>`,
      )}</ul>`
}
${
  view.givable.length === 0
    ? ''
    : html`<form method="post" action="${base}/roles">
${csrfField(view.csrfToken)}
<label for="give-role">Give a role</label>
<select id="give-role" name="role">${view.givable.map((role) => html`<option value="${role}">${role}</option>`)}</select>
<div class="row"><button type="submit" class="secondary">Give</button></div>
</form>`
}
<h2>Profile claims</h2>
${view.claims.length === 0 ? html`<p>None shared.</p>` : html`<ul class="apps">${view.claims.map(([name, value]) => html`<li>${name}: ${value}</li>`)}</ul>`}
<h2>Signed-in browsers</h2>
${
  view.sessions.length === 0
    ? html`<p>None.</p>`
    : html`<ul class="apps">${view.sessions.map(
        (session) => html`<li><form method="post" action="${base}/sessions/${session.handle}/end" class="row">
${csrfField(view.csrfToken)}
<span>${session.device} · ${session.address} · last seen ${when(session.lastSeenAt)}</span>
<button type="submit" class="secondary" aria-label="Sign out ${session.device}, last seen ${session.lastSeenAt.toISOString().slice(0, 16)}">Sign out</button>
</form></li>`,
      )}</ul>${view.moreSessions ? html`<p>More browsers are signed in than shown; End all sessions signs every one out.</p>` : ''}`
}
<h2>Connected applications</h2>
${
  view.applications.length === 0
    ? html`<p>None.</p>`
    : html`<ul class="apps">${view.applications.map(
        (app) => html`<li><form method="post" action="${base}/applications/${app.clientId}/revoke" class="row">
${csrfField(view.csrfToken)}
<span><strong>${app.name}</strong> · ${app.scope.join(' ')}</span>
<button type="submit" class="secondary" aria-label="Revoke ${app.name}">Revoke</button>
</form></li>`,
      )}</ul>`
}
<h2>Recent events</h2>
${eventList(view.events, false)}
<p><a href="/admin/events?person=${view.id}">All of this person's events</a> · <a href="/admin/people">All people</a></p>
<h2>Delete</h2>
<p>Deleting ends every session, token and grant of this person. It cannot be undone.</p>
${action(view.csrfToken, `${base}/delete`, 'Delete this person')}`,
    view.notice,
  );
}

export interface ApplicationRow {
  clientId: string;
  name: string;
  website: string;
  grants: string[];
  authMethod: string;
}

export function applicationsPage(view: {
  q: string;
  applications: ApplicationRow[];
  next: string | null;
  providers: { id: string; name: string; issuer: string }[];
  notice?: string;
}): string {
  return consolePage(
    'Applications',
    '/admin/applications',
    html`<form method="get" action="/admin/applications" class="row" role="search">
<label for="q" class="visually-hidden">Name or client id starts with</label>
<input id="q" name="q" type="text" value="${view.q}" placeholder="Name or client id starts with" maxlength="100">
<button type="submit">Search</button>
</form>
<p><a href="/admin/applications/new">Register an application</a></p>
${
  view.applications.length === 0
    ? html`<p>No application found.</p>`
    : html`<ul class="apps">${view.applications.map(
        (app) =>
          html`<li><a href="/admin/applications/${app.clientId}">${app.name}</a> · <code>${app.clientId}</code>${
            app.website ? html` · ${app.website}` : ''
          } · ${app.grants.join(', ')} · ${app.authMethod}</li>`,
      )}</ul>`
}
${next(view.next)}
<h2>Sign-in providers</h2>
${
  view.providers.length === 0
    ? html`<p>None besides passwords and passkeys. They are set in UPSTREAM_PROVIDERS (and GitHub in GITHUB_*).</p>`
    : html`<ul class="apps">${view.providers.map((provider) => html`<li><strong>${provider.name}</strong> · ${provider.id} · ${provider.issuer}</li>`)}</ul>
<p>Set in UPSTREAM_PROVIDERS (and GitHub in GITHUB_*): read-only here.</p>`
}`,
    view.notice,
  );
}

/** The registration form's fields, by RFC 7591's names, as typed (lists one per line). */
export interface RegistrationForm {
  client_name: string;
  client_uri: string;
  redirect_uris: string;
  post_logout_redirect_uris: string;
  grant_types: string[];
  token_endpoint_auth_method: string;
  jwks_uri: string;
  jwks: string;
  backchannel_logout_uri: string;
  initiate_login_uri: string;
  logo_uri: string;
  policy_uri: string;
  tos_uri: string;
}

const field = (name: string, label: string, value: string, hint?: string, type = 'url') => html`<label for="${name}">${label}</label>
${hint ? html`<p class="hint" id="${name}-hint">${hint}</p>` : ''}<input id="${name}" name="${name}" type="${type}" value="${value}"${
  hint ? html` aria-describedby="${name}-hint"` : ''
}>`;
const lines = (name: string, label: string, value: string, hint: string) => html`<label for="${name}">${label}</label>
<p class="hint" id="${name}-hint">${hint}</p><textarea id="${name}" name="${name}" rows="3" aria-describedby="${name}-hint">${value}</textarea>`;
const grantChoices = (name: string, grants: readonly string[], chosen: readonly string[]) =>
  html`<fieldset><legend>Grant types</legend>${grants.map(
    (grant) =>
      html`<label class="check"><input type="checkbox" name="${name}" value="${grant}"${chosen.includes(grant) ? html` checked` : ''}> ${grant}</label>`,
  )}</fieldset>`;

export function newApplicationPage(view: {
  form: RegistrationForm;
  grants: readonly string[];
  authMethods: readonly string[];
  csrfToken: string;
  error?: string;
}): string {
  const { form } = view;
  return consolePage(
    'Register an application',
    '/admin/applications',
    html`${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<form method="post" action="/admin/applications/new">
${csrfField(view.csrfToken)}
${field('client_name', 'Name', form.client_name, undefined, 'text')}
${field('client_uri', 'Website', form.client_uri)}
${lines('redirect_uris', 'Redirect URIs', form.redirect_uris, 'One per line; the first is the default.')}
${grantChoices('grant_types', view.grants, form.grant_types)}
<label for="token_endpoint_auth_method">Client authentication</label>
<select id="token_endpoint_auth_method" name="token_endpoint_auth_method">${view.authMethods.map(
      (method) => html`<option value="${method}"${method === form.token_endpoint_auth_method ? html` selected` : ''}>${method}</option>`,
    )}</select>
<fieldset><legend>Keys (private_key_jwt)</legend>
${field('jwks_uri', 'JWK Set URL', form.jwks_uri)}
${lines('jwks', 'Or the JWK Set itself', form.jwks, 'Its public keys, as JSON.')}
</fieldset>
<fieldset><legend>Sign-out and pages</legend>
${lines('post_logout_redirect_uris', 'Addresses after sign-out', form.post_logout_redirect_uris, 'One per line.')}
${field('backchannel_logout_uri', 'Back-channel logout URI', form.backchannel_logout_uri)}
${field('initiate_login_uri', 'Sign-in start (initiate_login_uri)', form.initiate_login_uri)}
${field('logo_uri', 'Logo', form.logo_uri)}
${field('policy_uri', 'Privacy policy', form.policy_uri)}
${field('tos_uri', 'Terms of service', form.tos_uri)}
</fieldset>
<div class="row"><button type="submit">Register</button><a href="/admin/applications">Cancel</a></div>
</form>`,
  );
}

/** A secret shown once: after registering, or after replacing it. */
export function secretPage(view: {
  clientId: string;
  name: string;
  secret?: string;
  registrationToken?: string;
  registered: boolean;
}): string {
  return consolePage(
    view.registered ? 'Application registered' : 'New secret',
    '/admin/applications',
    html`<p><strong>${view.name}</strong></p>
<p>Client id: <code>${view.clientId}</code></p>
${
  view.secret
    ? html`<p>Client secret: <code>${view.secret}</code></p>
<p class="notice" role="status">Copy the secret now: it is not shown again${view.registered ? '' : html`, and the old one no longer works`}.</p>`
    : html`<p>This application has no secret: it signs in with its keys or as a public client.</p>`
}
${view.registrationToken ? html`<p>Registration access token (RFC 7592): <code>${view.registrationToken}</code></p>` : ''}
<p><a href="/admin/applications/${view.clientId}">To the application</a> · <a href="/admin/applications">All applications</a></p>`,
  );
}

export interface ApplicationView {
  clientId: string;
  name: string;
  website: string;
  redirectUris: string[];
  grants: string[];
  authMethod: string;
  /** The rest of the registration, by RFC 7591's names, as shown. */
  details: [string, string][];
  /** The person who registered it, or null for an operator's. */
  owner: { id: string; email: string | null } | null;
  allGrants: readonly string[];
  grantedBy: { personId: string; email: string | null; scope: string[]; since: Date }[];
  next: string | null;
  csrfToken: string;
  error?: string;
  notice?: string;
}

export function applicationPage(view: ApplicationView): string {
  const base = `/admin/applications/${view.clientId}`;
  return consolePage(
    view.name,
    '/admin/applications',
    html`${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<p>Client id: <code>${view.clientId}</code> · ${view.authMethod}</p>
<p>Registered by ${view.owner ? html`<a href="/admin/people/${view.owner.id}">${view.owner.email ?? view.owner.id}</a>` : 'an operator'}</p>
${
  view.details.length
    ? html`<dl class="details">${view.details.map(([name, value]) => html`<dt>${DETAIL_NAMES[name] ?? name}</dt><dd>${value}</dd>`)}</dl>`
    : ''
}
<h2>Edit</h2>
<form method="post" action="${base}">
${csrfField(view.csrfToken)}
${field('client_name', 'Name', view.name, undefined, 'text')}
${field('client_uri', 'Website', view.website)}
${lines('redirect_uris', 'Redirect URIs', view.redirectUris.join('\n'), 'One per line; the first is the default.')}
${grantChoices('grant_types', view.allGrants, view.grants)}
<div class="row"><button type="submit">Save</button></div>
</form>
<h2>Who has granted it</h2>
${
  view.grantedBy.length === 0
    ? html`<p>Nobody yet.</p>`
    : html`<ul class="apps">${view.grantedBy.map(
        (grant) =>
          html`<li><a href="/admin/people/${grant.personId}">${grant.email ?? grant.personId}</a> · ${grant.scope.join(' ')} · since ${when(grant.since)}</li>`,
      )}</ul>`
}
${next(view.next)}
<h2>Secret and deletion</h2>
<div class="row">
${view.authMethod.startsWith('client_secret') ? action(view.csrfToken, `${base}/secret`, 'Replace the secret') : ''}
${action(view.csrfToken, `${base}/delete`, 'Delete this application')}
</div>
<p><a href="/admin/events?application=${view.clientId}">This application's events</a> · <a href="/admin/applications">All applications</a></p>`,
    view.notice,
  );
}

export function keysPage(view: {
  keys: { kid: string; alg: string; createdAt: Date; retired?: Date; publishedUntil?: Date }[];
  /** How long an instance may go on signing with a key after another made new ones current (OIDC_KEYS_REFRESH_SECONDS). */
  refreshSeconds: number;
  csrfToken: string;
  notice?: string;
}): string {
  const lastSigning = (retired: Date) => new Date(retired.getTime() + view.refreshSeconds * 1000);
  return consolePage(
    'Signing keys',
    '/admin/keys',
    html`<ul class="apps">${view.keys.map(
      (key) =>
        html`<li><code>${key.kid}</code> · ${key.alg} · made ${when(key.createdAt)} · ${
          key.retired
            ? html`retired ${when(key.retired, true)} (instances may sign with it until ${when(lastSigning(key.retired), true)}), published until ${
                key.publishedUntil ? when(key.publishedUntil) : 'its tokens expire'
              }`
            : html`<strong>current</strong>`
        }</li>`,
    )}</ul>
<p>Rotating makes new keys current at once on this instance; every other instance takes them up within ${view.refreshSeconds} s
(OIDC_KEYS_REFRESH_SECONDS), and until then may still sign with the old ones. Old keys stay published, so they keep verifying
what they signed until that expires.</p>
${action(view.csrfToken, '/admin/keys/rotate', 'Rotate now', false)}`,
    view.notice,
  );
}

export interface EventRow {
  at: Date;
  kind: string;
  person?: string;
  /** The person's email, when they have one. */
  personName?: string;
  application?: string;
  address: string;
  detail?: string;
}

function eventList(events: EventRow[], withPerson: boolean): SafeHtml {
  if (events.length === 0) return html`<p>No event.</p>`;
  return html`<ul class="apps">${events.map(
    (event) =>
      html`<li>${when(event.at)} · <strong>${event.kind}</strong>${
        withPerson && event.person ? html` · <a href="/admin/people/${event.person}">${event.personName ?? event.person}</a>` : ''
      }${event.application ? html` · <a href="/admin/applications/${event.application}">${event.application}</a>` : ''} · ${event.address}${
        event.detail ? html` · ${event.detail}` : ''
      }</li>`,
  )}</ul>`;
}

export function eventsPage(view: {
  events: EventRow[];
  next: string | null;
  person: string;
  application: string;
  kind: string;
  kinds: readonly string[];
}): string {
  return consolePage(
    'Events',
    '/admin/events',
    html`<form method="get" action="/admin/events" role="search" class="filters">
<div><label for="person">Person id</label>
<input id="person" name="person" type="text" value="${view.person}" maxlength="100"></div>
<div><label for="application">Application (client id)</label>
<input id="application" name="application" type="text" value="${view.application}" maxlength="100"></div>
<div><label for="kind">Kind</label>
<select id="kind" name="kind"><option value="">Any kind</option>${view.kinds.map(
      (kind) => html`<option value="${kind}"${kind === view.kind ? html` selected` : ''}>${kind}</option>`,
    )}</select></div>
<div class="row"><button type="submit">Filter</button></div>
</form>
${eventList(view.events, true)}
${next(view.next)}`,
  );
}

/** The agents page's lists, as the admin API gives them. */
export interface AgentsView {
  q: string;
  clients: { client_id: string; host: string; name: string; first_seen: string; last_seen: string; grants: number }[];
  clientsNext: string | null;
  hosts: { host: string; rule: string; at: string }[];
  hostsNext: string | null;
  rules: { client_id: string; audience: string; token_type: string; scopes: string[]; subjects: string; target_client_id?: string }[];
  rulesNext: string | null;
  /** CLIENT_ID_DOCUMENTS: what hosts without a rule get. */
  mode: string;
  csrfToken: string;
  notice?: string;
  error?: string;
}

const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;
const smallForm = (
  csrfToken: string,
  path: string,
  fields: SafeHtml,
  label: string,
  labelFor: string,
) => html`<form method="post" action="${path}" class="inline">
${csrfField(csrfToken)}${fields}<button type="submit" class="secondary" aria-label="${label} ${labelFor}">${label}</button>
</form>`;

/** Agents (docs/oauth.md): clients known by their documents, the document hosts' rules, and the token exchange rules. */
export function agentsPage(view: AgentsView): string {
  const modeWords: Record<string, string> = {
    any: 'Documents are taken from every host not blocked below.',
    allowed: 'Documents are taken only from hosts allowed below.',
    off: 'Client ID metadata documents are off (CLIENT_ID_DOCUMENTS=off): the rules below wait.',
  };
  return consolePage(
    'Agents',
    '/admin/agents',
    html`${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<h2>Applications known by their documents</h2>
<p>Clients whose <code>client_id</code> is the address of their metadata document, listed once they got a token.</p>
<form method="get" action="/admin/agents" class="row" role="search">
<label for="q" class="visually-hidden">Document address starts with</label>
<input id="q" name="q" type="text" value="${view.q}" placeholder="Document address starts with" maxlength="100">
<button type="submit">Search</button>
</form>
${
  view.clients.length === 0
    ? html`<p>None yet.</p>`
    : html`<ul class="apps">${view.clients.map(
        (client) =>
          html`<li><strong>${client.name}</strong> · ${client.host} · <code>${client.client_id}</code> · first seen ${when(new Date(client.first_seen))} · last seen ${when(
            new Date(client.last_seen),
          )} · ${client.grants === 1 ? '1 person' : `${client.grants} people`} granted it</li>`,
      )}</ul>`
}
${next(view.clientsNext)}
<h2>Document hosts</h2>
<p>${modeWords[view.mode] ?? ''}</p>
${
  view.hosts.length === 0
    ? html`<p>No host has a rule.</p>`
    : html`<ul class="apps">${view.hosts.map(
        (host) =>
          html`<li><strong>${host.rule === 'allow' ? 'Allowed' : 'Blocked'}</strong> · ${host.host} · since ${when(new Date(host.at))} ${smallForm(
            view.csrfToken,
            '/admin/agents/hosts/forget',
            hidden('host', host.host),
            'Forget',
            host.host,
          )}</li>`,
      )}</ul>`
}
${next(view.hostsNext)}
<form method="post" action="/admin/agents/hosts">
${csrfField(view.csrfToken)}
<label for="host">Host</label>
<p class="hint" id="host-hint">As in the document's address: lower case, with its port when not 443.</p>
<input id="host" name="host" type="text" required maxlength="300" aria-describedby="host-hint">
<fieldset><legend>Rule</legend>
<label class="check"><input type="radio" name="rule" value="allow" checked> Allow</label>
<label class="check"><input type="radio" name="rule" value="block"> Block</label>
</fieldset>
<button type="submit">Save the host's rule</button>
</form>
<h2>Token exchange rules</h2>
<p>Which application may exchange a person's token, and for what: an access token for a resource here, or an ID-JAG for another authorization server.</p>
${
  view.rules.length === 0
    ? html`<p>No rule: no application may exchange tokens.</p>`
    : html`<ul class="apps">${view.rules.map(
        (rule) =>
          html`<li><code>${rule.client_id}</code> → ${rule.audience} · ${rule.token_type} · ${rule.scopes.join(' ')} · ${
            rule.subjects === 'own' ? 'its own tokens' : "any application's tokens"
          }${rule.target_client_id ? html` · as <code>${rule.target_client_id}</code> there` : ''} ${smallForm(
            view.csrfToken,
            '/admin/agents/exchange/delete',
            html`${hidden('client_id', rule.client_id)}${hidden('audience', rule.audience)}`,
            'Delete',
            `${rule.client_id} to ${rule.audience}`,
          )}</li>`,
      )}</ul>`
}
${next(view.rulesNext)}
<form method="post" action="/admin/agents/exchange">
${csrfField(view.csrfToken)}
${field('client_id', 'Client id', '', 'The application that exchanges.', 'text')}
${field('audience', 'Audience', '', 'A resource registered here (or this server); for an ID-JAG, the issuer of the other authorization server.')}
${field('scopes', 'Scopes', '', 'The most the new token may carry, separated by spaces.', 'text')}
<fieldset><legend>Token</legend>
<label class="check"><input type="radio" name="token_type" value="access_token" checked> Access token</label>
<label class="check"><input type="radio" name="token_type" value="id-jag"> ID-JAG</label>
</fieldset>
<fieldset><legend>Tokens it may exchange</legend>
<label class="check"><input type="radio" name="subjects" value="own" checked> Its own</label>
<label class="check"><input type="radio" name="subjects" value="any"> Any application's</label>
</fieldset>
${field('target_client_id', 'Client id there (ID-JAG only)', '', "The application's client id at the other authorization server.", 'text')}
<button type="submit">Save the rule</button>
</form>`,
    view.notice,
  );
}
