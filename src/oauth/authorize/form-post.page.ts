// OAuth 2.0 Form Post Response Mode: the authorization response as a page whose form posts the values
// to the client's registered redirect URI at once. Every value is escaped (web/html.ts); the page's own
// content security policy allows its one script by hash, posts only to the redirect URI's origin, and
// forbids framing; without JavaScript the person presses Continue.
import { createHash } from 'node:crypto';
import { html } from '../../web/html';
import { layout, STYLE_HASH } from '../../web/layout';

const SUBMIT = 'document.forms[0].submit()';
const SUBMIT_HASH = createHash('sha256').update(SUBMIT).digest('base64');

/** Where the form may post: the redirect URI's origin, or its scheme for a private-use one (RFC 8252). */
function formTarget(action: string): string {
  const url = new URL(action);
  return url.origin !== 'null' ? url.origin : url.protocol;
}

export function formPostPage(action: string, fields: Record<string, string>): { page: string; contentSecurityPolicy: string } {
  const page = layout(
    'Returning to the application',
    html`<h1>Returning to the application</h1>
<form method="post" action="${action}">
${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<noscript><p>JavaScript is off, so this page cannot go on by itself.</p><button type="submit">Continue</button></noscript>
</form>
<script>${SUBMIT}</script>`,
  );
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src 'sha256-${SUBMIT_HASH}'`,
    `style-src 'sha256-${STYLE_HASH}'`,
    `form-action ${formTarget(action)}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return { page, contentSecurityPolicy };
}
