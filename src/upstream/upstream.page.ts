// The page that asks a person signing in through a provider to prove the account here that has the
// provider's email, before the two are linked (docs/upstream.md, "Linking").
import { html } from '../web/html';
import { csrfField, layout, pageError } from '../web/layout';
import type { LinkRefusal } from './upstream.service';

export interface LinkView {
  csrfToken: string;
  providerName: string;
  email: string;
  /** The account has a password to give (else it is signed in to another way, then linked from /account). */
  hasPassword: boolean;
  problem?: string;
}

export function linkPage(view: LinkView): string {
  const intro = html`<p>You signed in with ${view.providerName} as <strong>${view.email}</strong>. An account here already has that
address. To link ${view.providerName} to it, confirm the account is yours.</p>`;
  if (!view.hasPassword) {
    return layout(
      `Link ${view.providerName}`,
      html`<h1>Link ${view.providerName}</h1>
${intro}
<p>That account has no password: sign in to it the way you usually do, then choose Link beside ${view.providerName} on your account page.</p>
<p><a href="/login?return_to=%2Faccount">Sign in</a></p>`,
    );
  }
  return layout(
    `Link ${view.providerName}`,
    html`<h1>Link ${view.providerName}</h1>
${view.problem ? html`<p class="error" role="alert">${view.problem}</p>` : ''}
${intro}
<form method="post" action="/login/link">
${csrfField(view.csrfToken)}
<input type="hidden" name="email" value="${view.email}" autocomplete="username">
<label for="password">Password for ${view.email}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="row"><button type="submit">Link and sign in</button></div>
</form>
<form method="post" action="/login/link/cancel">
${csrfField(view.csrfToken)}
<div class="row"><button type="submit" class="secondary">Cancel</button></div>
</form>
<p><a href="/forgot-password">Forgot your password?</a></p>`,
  );
}

/** Why a provider account could not be linked (upstream.service.ts LinkRefusal), as its page. */
export const linkRefusedPage = (providerName: string, refusal: LinkRefusal) =>
  refusal === 'taken'
    ? pageError(
        409,
        'Already linked',
        `This ${providerName} account is linked to another account here. Sign in with ${providerName} to use it.`,
      )
    : pageError(409, 'Already linked', `Your account has another ${providerName} account linked. Unlink it on your account page first.`);
