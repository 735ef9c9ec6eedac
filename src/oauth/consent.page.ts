// The consent page: which application asks for which scopes, with Approve and Deny.
import { html } from '../web/html';
import { csrfField, layout } from '../web/layout';
import { SCOPE_DEFINITIONS, type Scope } from './protocol';

const describe = (scope: string): string => (scope in SCOPE_DEFINITIONS ? SCOPE_DEFINITIONS[scope as Scope].consent : scope);

export function consentPage(options: {
  action: string;
  csrfToken: string;
  personName: string;
  /** The sign-in form, coming back here: to approve as someone else. */
  switchAccount: string;
  clientName: string;
  clientWebsite: string;
  scopes: string[];
  fields: Record<string, string>;
}): string {
  return layout(
    `Authorize ${options.clientName}`,
    html`<h1>Authorize ${options.clientName}?</h1>
<p><strong>${options.clientName}</strong>${options.clientWebsite ? html` (<a href="${options.clientWebsite}" rel="noopener noreferrer">${options.clientWebsite}</a>)` : ''} asks for access to your account:</p>
<ul>${options.scopes.map((scope) => html`<li><strong>${scope}</strong>: ${describe(scope)}</li>`)}</ul>
<p>Signed in as <strong>${options.personName}</strong>. <a href="${options.switchAccount}">Not you? Switch account</a></p>
<form method="post" action="${options.action}">
${csrfField(options.csrfToken)}
${Object.entries(options.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<div class="row">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`,
  );
}
