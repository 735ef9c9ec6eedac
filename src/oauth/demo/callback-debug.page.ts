// /oauth/callback-debug: what an authorization response brought, a form that exchanges its code at
// the token endpoint, and what came back. Development only.
import { html } from '../../web/html';
import { csrfField, layout } from '../../web/layout';
import { CALLBACK_DEBUG_PATH, type CodeExchangeForm, type ExchangeResult } from './demo.service';

const json = (value: unknown) => html`<pre>${JSON.stringify(value, null, 2)}</pre>`;

function field(name: keyof CodeExchangeForm, label: string, value: string) {
  return html`<label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="text" spellcheck="false" autocomplete="off" value="${value}">`;
}

export interface CallbackDebugView {
  /** The authorization response's query parameters (empty when the page is opened directly). */
  received: Record<string, string>;
  form: CodeExchangeForm;
  csrfToken: string;
  /** An authorization request for the demo client, to start a flow from here. */
  startUrl: string;
  result?: ExchangeResult;
}

export function callbackDebugPage(view: CallbackDebugView): string {
  const { received, form, result } = view;
  const outcome = received.error
    ? html`<p class="error" role="alert">The authorization server answered <strong>${received.error}</strong>${received.error_description ? html`: ${received.error_description}` : ''}.</p>`
    : '';
  return layout(
    'OAuth callback (debug)',
    html`<h1>OAuth callback (debug)</h1>
<p>A client application's redirect URI, served by this server in development only (never with <code>NODE_ENV=production</code>).
<a href="${view.startUrl}">Start an authorization code flow</a> with the demo client (from <code>npm run seed -- --demo</code>).</p>
${
  Object.keys(received).length
    ? html`<h2>Authorization response</h2>${outcome}${json(received)}`
    : result
      ? ''
      : html`<p>Nothing arrived yet. Tokens of the implicit flow come in the URL's fragment, which browsers never send to a server: read them in the address bar.</p>`
}
${
  result
    ? html`<h2>Token request</h2><p><code>POST /oauth/token</code> (form-encoded):</p>${json(result.sent)}
<h2>Token response: ${result.status}</h2>${json(result.body)}
${result.idTokenClaims ? html`<h2>ID token claims</h2><p>Decoded, not verified: a client checks the signature against <a href="/oauth/jwks">/oauth/jwks</a>.</p>${json(result.idTokenClaims)}` : ''}`
    : ''
}
<h2>Exchange the code</h2>
<form method="post" action="${CALLBACK_DEBUG_PATH}">
${csrfField(view.csrfToken)}
${field('code', 'code', form.code)}
${field('redirect_uri', 'redirect_uri', form.redirect_uri)}
${field('client_id', 'client_id', form.client_id)}
${field('client_secret', 'client_secret (empty for a public client)', form.client_secret)}
${field('code_verifier', 'code_verifier (when the request had a code_challenge)', form.code_verifier)}
<div class="row"><button type="submit">Exchange</button></div>
</form>`,
    { wide: true },
  );
}
