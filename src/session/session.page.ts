// The sign-in page and the signed-in home page.
import { html } from '../web/html';
import { connectedApplications, type ConnectedApplicationView } from '../web/applications';
import { csrfField, layout } from '../web/layout';
import { PASSKEY_SCRIPTS, passkeyForm } from '../web/passkey-button';
import { providerLinks, type SignInProvider } from '../web/sign-in-providers';

export type { ConnectedApplicationView } from '../web/applications';

export interface LoginView {
  csrfToken: string;
  returnTo: string;
  /** GitHub (when configured) and the upstream OpenID providers. */
  providers: readonly SignInProvider[];
  email?: string;
  error?: string;
}

export function loginPage(options: LoginView): string {
  return layout(
    'Sign in',
    html`<h1>Sign in</h1>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<form method="post" action="/login">
${csrfField(options.csrfToken)}
<input type="hidden" name="return_to" value="${options.returnTo}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label class="check"><input type="checkbox" name="remember" value="1"> Remember me for 30 days</label>
<div class="row"><button type="submit">Sign in</button></div>
</form>
${providerLinks(options.providers, options.returnTo)}
${passkeyForm({ csrfToken: options.csrfToken, kind: 'authenticate', options: '/login/passkey/options', verify: '/login/passkey', label: 'Use a passkey', id: 'passkey', returnTo: options.returnTo })}
<p><a href="/forgot-password">Forgot your password?</a> · New here? <a href="/signup">Create an account</a></p>
${PASSKEY_SCRIPTS}`,
  );
}

export function homePage(options: {
  name: string;
  email?: string;
  avatarUrl?: string;
  csrfToken: string;
  applications: ConnectedApplicationView[];
  /** An operator (the admin role): the page links to the console. */
  operator?: boolean;
}): string {
  return layout(
    'Home',
    html`<h1>Signed in</h1>
${options.avatarUrl ? html`<p><img src="${options.avatarUrl}" alt="" width="64" height="64"></p>` : ''}
<p>You are signed in as <strong>${options.name}</strong>${options.email ? html` (${options.email})` : ''}.</p>
<form method="post" action="/logout">
${csrfField(options.csrfToken)}
<div class="row"><button type="submit" class="secondary">Sign out</button></div>
</form>
<p><a href="/account">Your account</a>: profile, password, signed-in browsers and recent activity.</p>
${options.operator ? html`<p><a href="/admin">The operator’s console</a>: people, applications, keys and events.</p>` : ''}
<h2>Connected applications</h2>
${connectedApplications(options.applications, options.csrfToken, '/home')}
<h2>Elsewhere</h2>
<ul>
<li><a href="/device">Connect a device</a> that shows you a code</li>
<li><a href="/docs">API reference</a>, for building an application</li>
<li><a href="/">Start page</a></li>
</ul>`,
  );
}
