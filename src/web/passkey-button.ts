// A passkey button (public/passkeys.js drives it): hidden until the script finds WebAuthn, so a page
// without JavaScript shows only what works without it. Pages that carry one allow their own scripts
// (web/scripts.ts) and end with PASSKEY_SCRIPTS.
import { html, SafeHtml } from './html';
import { csrfField } from './layout';

export const PASSKEY_SCRIPTS = html`<script src="/assets/webauthn-browser.js"></script><script src="/assets/passkeys.js"></script>`;

export interface PasskeyButton {
  csrfToken: string;
  kind: 'register' | 'authenticate';
  /** Where the ceremony's options come from, and where its answer goes (both JSON, POST). */
  options: string;
  verify: string;
  label: string;
  /** A name input for a new passkey, of at most this many characters. */
  nameInput?: number;
  /** The status line's id (messages are spoken: role=status). */
  id: string;
  /** The page's main way on (a full button rather than a secondary one). */
  primary?: boolean;
  /** Where the browser goes after a sign-in with it (a local path, sent back with the answer). */
  returnTo?: string;
}

export function passkeyForm(button: PasskeyButton): SafeHtml {
  return html`<form class="passkey" hidden>
${csrfField(button.csrfToken)}
${button.returnTo ? html`<input type="hidden" name="return_to" value="${button.returnTo}">` : ''}
${button.nameInput ? html`<label for="${button.id}-name">Name of the new passkey</label><input id="${button.id}-name" name="name" type="text" maxlength="${button.nameInput}" value="Passkey">` : ''}
<div class="row"><button type="button"${button.primary ? '' : new SafeHtml(' class="secondary"')} hidden data-passkey="${button.kind}" data-options="${button.options}" data-verify="${button.verify}" data-status="${button.id}-status">${button.label}</button></div>
<p id="${button.id}-status" role="status"></p>
</form>`;
}
