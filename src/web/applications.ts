// The connected applications list of /home and /account: each application the person authorized,
// what it may do, and a Revoke button.
import { oneOfField, onPage } from '../common/request-fields';
import { CSRF_FIELDS } from './csrf';
import { html } from './html';
import { csrfField } from './layout';

const BACK = ['/home', '/account'] as const;

/** The Revoke button's form: its CSRF token, and the page it came from (/home when none). */
export const REVOKE_FORM = { ...CSRF_FIELDS, back: onPage(oneOfField(BACK, 'The page to come back to')) };

/** An application the person authorized, as /home lists it. */
export interface ConnectedApplicationView {
  clientId: string;
  name: string;
  website?: string;
  scope: string[];
  firstGranted: Date;
  lastUsed: Date;
  /** It takes sign-ins started here (OIDC Core §4): the list links to it. */
  opens: boolean;
}

/** A connected application as the grants API lists it (GET /oauth/grants). */
interface ListedApplication {
  client_id: string;
  name: string;
  website?: string;
  scope: string[];
  first_granted_at: string | Date;
  last_used_at: string | Date;
  initiate_login_uri?: string;
}

/** The list's view of what the grants API lists. */
export const applicationView = (app: ListedApplication): ConnectedApplicationView => ({
  clientId: app.client_id,
  name: app.name,
  website: app.website,
  scope: app.scope,
  firstGranted: new Date(app.first_granted_at),
  lastUsed: new Date(app.last_used_at),
  opens: app.initiate_login_uri !== undefined,
});

/** A date that never breaks across lines at its hyphens. */
const day = (date: Date) => {
  const iso = date.toISOString().slice(0, 10);
  return html`<time datetime="${iso}">${iso}</time>`;
};

/** The list with a Revoke button each; the form comes back to `back` (/home or /account). */
export function connectedApplications(applications: ConnectedApplicationView[], csrfToken: string, back: (typeof BACK)[number]) {
  if (applications.length === 0) return html`<p>No application has access to your account.</p>`;
  return html`<ul class="apps">${applications.map(
    (app) => html`<li>
<h3>${app.name}</h3>
${app.website ? html`<p><a href="${app.website}" rel="noopener noreferrer">${app.website}</a></p>` : ''}
<p>Access: ${app.scope.join(', ')}. Since ${day(app.firstGranted)}, last used ${day(app.lastUsed)}.</p>
${app.opens ? html`<p><a href="/home/applications/${encodeURIComponent(app.clientId)}/open">Open ${app.name}</a></p>` : ''}
<form method="post" action="/home/applications/${encodeURIComponent(app.clientId)}/revoke">
${csrfField(csrfToken)}
<input type="hidden" name="back" value="${back}">
<button type="submit" class="secondary">Revoke</button>
</form>
</li>`,
  )}</ul>`;
}
