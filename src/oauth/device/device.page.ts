// The verification page of the device flow: a form with an input named user_code, and the outcome.
import { html } from '../../web/html';
import { csrfField, layout } from '../../web/layout';
import { MAX_TYPED_USER_CODE_LENGTH } from '../protocol';

export function verificationPage(options: { csrfToken: string; userCode?: string; error?: string }): string {
  return layout(
    'Connect a device',
    html`<h1>Connect a device</h1>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<p>Type the code your device shows.</p>
<form method="post" action="/device">
${csrfField(options.csrfToken)}
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required maxlength="${MAX_TYPED_USER_CODE_LENGTH}" value="${options.userCode ?? ''}">
<div class="row"><button type="submit">Continue</button></div>
</form>`,
  );
}

export function deviceOutcomePage(approved: boolean): string {
  return approved
    ? layout(
        'Device connected',
        html`<h1>Device connected</h1><p>You can go back to your device now: it finishes signing in by itself within a few seconds.</p><p><a href="/home">Your connected applications</a>, where you can take its access away again.</p>`,
      )
    : layout(
        'Access denied',
        html`<h1>Access denied</h1><p>The device did not get access to your account.</p><p><a href="/home">Back to your account</a></p>`,
      );
}
