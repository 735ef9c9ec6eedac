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

const next = (href: string | null) => (href ? html`<p><a href="${href}">Next page</a></p>` : '');
const when = (date: Date) => html`<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;

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
  factors: { totp: boolean; passkeys: boolean };
  applications: { clientId: string; name: string; scope: string[] }[];
  events: EventRow[];
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
<p>Roles: ${view.roles.length ? view.roles.join(', ') : 'none'} · Second factors: ${factors.length ? factors.join(' and ') : 'none'} · ${
      view.disabled ? html`<strong>Disabled</strong>` : 'Active'
    }</p>
<div class="row">
${action(view.csrfToken, `${base}/sessions/end`, 'End all sessions')}
${action(view.csrfToken, `${base}/factors/reset`, 'Reset second factors')}
${action(view.csrfToken, `${base}/${view.disabled ? 'enable' : 'disable'}`, view.disabled ? 'Enable' : 'Disable', false)}
</div>
${view.email ? action(view.csrfToken, `${base}/reset-link`, 'Send a reset link') : ''}
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
}

export function applicationsPage(view: {
  applications: ApplicationRow[];
  next: string | null;
  providers: { id: string; name: string; issuer: string }[];
}): string {
  return consolePage(
    'Applications',
    '/admin/applications',
    html`${
      view.applications.length === 0
        ? html`<p>No application is registered.</p>`
        : html`<ul class="apps">${view.applications.map(
            (app) => html`<li><strong>${app.name}</strong> · <code>${app.clientId}</code> · ${app.website} · ${app.grants.join(', ')}</li>`,
          )}</ul>`
    }
${next(view.next)}
<h2>Sign-in providers</h2>
${
  view.providers.length === 0
    ? html`<p>None besides passwords and passkeys. They are set in UPSTREAM_PROVIDERS.</p>`
    : html`<ul class="apps">${view.providers.map((provider) => html`<li><strong>${provider.name}</strong> · ${provider.id} · ${provider.issuer}</li>`)}</ul>
<p>Set in UPSTREAM_PROVIDERS: read-only here.</p>`
}`,
  );
}

export function keysPage(view: {
  keys: { kid: string; alg: string; createdAt: Date; retired?: Date; publishedUntil?: Date }[];
  csrfToken: string;
  notice?: string;
}): string {
  return consolePage(
    'Signing keys',
    '/admin/keys',
    html`<ul class="apps">${view.keys.map(
      (key) =>
        html`<li><code>${key.kid}</code> · ${key.alg} · made ${when(key.createdAt)} · ${
          key.retired
            ? html`retired, published until ${key.publishedUntil ? when(key.publishedUntil) : 'its tokens expire'}`
            : html`<strong>current</strong>`
        }</li>`,
    )}</ul>
<p>Rotating makes new keys current; the old ones keep verifying the tokens they signed until those expire.</p>
${action(view.csrfToken, '/admin/keys/rotate', 'Rotate now', false)}`,
    view.notice,
  );
}

export interface EventRow {
  at: Date;
  kind: string;
  person: string;
  address: string;
  detail?: string;
}

function eventList(events: EventRow[], withPerson: boolean): SafeHtml {
  if (events.length === 0) return html`<p>No event.</p>`;
  return html`<ul class="apps">${events.map(
    (event) =>
      html`<li>${when(event.at)} · <strong>${event.kind}</strong>${
        withPerson ? html` · <a href="/admin/people/${event.person}">${event.person}</a>` : ''
      } · ${event.address}${event.detail ? html` · ${event.detail}` : ''}</li>`,
  )}</ul>`;
}

export function eventsPage(view: {
  events: EventRow[];
  next: string | null;
  person: string;
  kind: string;
  kinds: readonly string[];
}): string {
  return consolePage(
    'Events',
    '/admin/events',
    html`<form method="get" action="/admin/events" class="row" role="search">
<label for="person" class="visually-hidden">Person id</label>
<input id="person" name="person" type="text" value="${view.person}" placeholder="Person id" maxlength="100">
<label for="kind" class="visually-hidden">Kind</label>
<select id="kind" name="kind"><option value="">Any kind</option>${view.kinds.map(
      (kind) => html`<option value="${kind}"${kind === view.kind ? html` selected` : ''}>${kind}</option>`,
    )}</select>
<button type="submit">Filter</button>
</form>
${eventList(view.events, true)}
${next(view.next)}`,
  );
}
