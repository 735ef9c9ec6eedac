// The second step of signing in, and the pages that turn factors on: the authenticator app's QR code
// and the recovery codes, shown once.
import { html, SafeHtml } from '../web/html';
import { csrfField, layout } from '../web/layout';
import { PASSKEY_SCRIPTS, passkeyForm } from '../web/passkey-button';
import { FACTOR_RULES } from './factors.rules';

const DIGITS = FACTOR_RULES.totp.digits;

export interface SecondStepView {
  csrfToken: string;
  passkeys: boolean;
  totp: boolean;
  /** A step-up: why it asks, and where Cancel leads (sign-in/journey.service.ts stepUpReason). */
  stepUp: { why: string; cancel: string } | null;
  error?: string;
}

/**
 * The second step: a code (the app's, or a recovery code) and a passkey button. A person whose only
 * factor is a passkey is offered the passkey first, a recovery code after it.
 */
export function secondStepPage(view: SecondStepView): string {
  const passkeyFirst = view.passkeys && !view.totp;
  const passkey = view.passkeys
    ? passkeyForm({
        csrfToken: view.csrfToken,
        kind: 'authenticate',
        options: '/login/verify/passkey/options',
        verify: '/login/verify/passkey',
        label: passkeyFirst ? 'Use your passkey' : 'Use a passkey instead',
        id: 'second-passkey',
        primary: passkeyFirst,
      })
    : '';
  const code = html`<form method="post" action="/login/verify">
${csrfField(view.csrfToken)}
<label for="code">${view.totp ? 'Code from your authenticator app, or a recovery code' : passkeyFirst ? 'Or a recovery code' : 'A recovery code'}</label>
<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" required maxlength="${FACTOR_RULES.maxTypedCodeLength}"${passkeyFirst ? '' : new SafeHtml(' autofocus')}>
<div class="row"><button type="submit"${passkeyFirst ? new SafeHtml(' class="secondary"') : ''}>Verify</button></div>
</form>`;
  const title = view.stepUp ? 'Confirm it is you' : 'Second step';
  return layout(
    title,
    html`<h1>${title}</h1>
<p>${view.stepUp ? view.stepUp.why : 'Your account asks for a second factor.'}</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
${passkeyFirst ? [passkey, code] : [code, passkey]}
<p>${view.stepUp ? html`<a href="${view.stepUp.cancel}">Cancel</a>` : html`<a href="/login">Start again</a>`}</p>
${view.passkeys ? PASSKEY_SCRIPTS : ''}`,
  );
}

export function totpEnrolPage(view: { csrfToken: string; qrSvg: string; secret: string; error?: string }): string {
  const grouped = view.secret.replace(/(.{4})/g, '$1 ').trim();
  return layout(
    'Set up an authenticator app',
    html`<h1>Set up an authenticator app</h1>
<p>Scan this code with an authenticator app (any app for "TOTP" codes), or type the key below into it. Then type the ${FACTOR_RULES.totp.digits}-digit code it shows.</p>
<figure class="qr" aria-label="QR code of the key">${new SafeHtml(view.qrSvg)}</figure>
<p>Key: <code>${grouped}</code></p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
<form method="post" action="/account/totp">
${csrfField(view.csrfToken)}
<label for="code">Code from the app</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{${DIGITS}}" maxlength="${DIGITS}" required>
<div class="row"><button type="submit">Turn on</button></div>
</form>
<p><a href="/account">Back to your account</a></p>`,
  );
}

export function recoveryCodesPage(codes: string[], reason: 'new' | 'again'): string {
  return layout(
    'Your recovery codes',
    html`<h1>Your recovery codes</h1>
<p>${reason === 'new' ? 'Your second factor is on.' : 'These replace your earlier recovery codes, which no longer work.'} Keep these codes somewhere safe: each one signs you in once if you lose your authenticator app or passkey. They are shown only now.</p>
<ul class="codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a href="/account">Back to your account</a></p>`,
  );
}
