// The pages of RP-initiated logout: asking before signing out, and saying it is done.
import { html } from '../../web/html';
import { csrfField, layout } from '../../web/layout';

export function confirmSignOutPage(options: { action: string; csrfToken: string; fields: Record<string, string> }): string {
  return layout(
    'Sign out',
    html`<h1>Sign out?</h1>
<p>An application asks to sign you out of this server.</p>
<form method="post" action="${options.action}">
${csrfField(options.csrfToken)}
${Object.entries(options.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<input type="hidden" name="confirm" value="yes">
<div class="row"><button type="submit">Sign out</button></div>
</form>`,
  );
}

export function signedOutPage(): string {
  return layout('Signed out', html`<h1>Signed out</h1><p>You are signed out of this server. <a href="/login">Sign in again</a>.</p>`);
}
