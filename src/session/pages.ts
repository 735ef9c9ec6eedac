// The server-rendered pages: small, accessible, readable without JavaScript.
import { createHash } from 'node:crypto';
import { AppError } from '../common/errors';
import { html, type SafeHtml } from './html';

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24;line-height:1.5}
main{max-width:26rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #8a949e;border-radius:.3rem}
.check{display:flex;gap:.4rem;align-items:center;font-weight:400}.row{display:flex;gap:.6rem;margin-top:1.2rem}
button{font-size:1rem;padding:.5rem 1.2rem;border-radius:.3rem;border:1px solid #1b5fb8;background:#1b5fb8;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1b5fb8}.error{color:#a61b1b;background:#fdecec;padding:.5rem;border-radius:.3rem}
a{color:#1b5fb8}ul{padding-left:1.2rem}main.wide{max-width:52rem}h3{font-size:1rem;margin-bottom:0}`;

/** For the content security policy, which allows this one inline stylesheet and no other. */
export const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export function layout(title: string, body: SafeHtml, options: { wide?: boolean } = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body><main${options.wide ? html` class="wide"` : ''}>${body}</main></body>
</html>`.value;
}

const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

export function loginPage(options: { csrfToken: string; returnTo: string; email?: string; error?: string }): string {
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
<p><a href="/auth/github">Sign in with GitHub</a></p>`,
  );
}

export function homePage(options: { name: string; email?: string; avatarUrl?: string; csrfToken: string }): string {
  return layout(
    'Home',
    html`<h1>Signed in</h1>
${options.avatarUrl ? html`<p><img src="${options.avatarUrl}" alt="" width="64" height="64"></p>` : ''}
<p>You are signed in as <strong>${options.name}</strong>${options.email ? html` (${options.email})` : ''}.</p>
<form method="post" action="/logout">
${csrfField(options.csrfToken)}
<div class="row"><button type="submit" class="secondary">Sign out</button></div>
</form>`,
  );
}

const SCOPE_DESCRIPTIONS: Record<string, string> = {
  read: 'Read your account details',
  write: 'Change data on your behalf',
};

export function consentPage(options: {
  action: string;
  csrfToken: string;
  clientName: string;
  clientWebsite: string;
  scopes: string[];
  fields: Record<string, string>;
}): string {
  return layout(
    `Authorize ${options.clientName}`,
    html`<h1>Authorize ${options.clientName}?</h1>
<p><strong>${options.clientName}</strong> (<a href="${options.clientWebsite}" rel="noopener noreferrer">${options.clientWebsite}</a>) asks for access to your account:</p>
<ul>${options.scopes.map((scope) => html`<li><strong>${scope}</strong>: ${SCOPE_DESCRIPTIONS[scope] ?? scope}</li>`)}</ul>
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

export function errorPage(title: string, message: string): string {
  return layout(title, html`<h1>${title}</h1><p>${message}</p>`);
}

/** An error answered with an HTML page, for the browser routes. */
export function pageError(status: number, title: string, message: string): AppError {
  return new AppError(status, errorPage(title, message), { 'Content-Type': 'text/html; charset=utf-8' });
}
