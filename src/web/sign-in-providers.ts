// The "Sign in with <name>" links of the sign-in and sign-up pages: GitHub when it is configured and
// every upstream OpenID provider (docs/upstream.md), each coming back to the page's return path.
import type { Config } from '../config';
import { html, type SafeHtml } from './html';

export interface SignInProvider {
  name: string;
  /** Where its sign-in starts: /auth/github, /auth/upstream/<id>. */
  path: string;
}

/** The providers the pages offer, in the order the operator listed them (GitHub first). */
export function signInProviders(config: Config): SignInProvider[] {
  return [
    ...(config.github.credentials ? [{ name: 'GitHub', path: '/auth/github' }] : []),
    ...config.upstream.providers.map((provider) => ({ name: provider.name, path: `/auth/upstream/${provider.id}` })),
  ];
}

export function providerLinks(providers: readonly SignInProvider[], returnTo: string): SafeHtml | '' {
  if (providers.length === 0) return '';
  const back = new URLSearchParams({ return_to: returnTo }).toString();
  return html`<ul class="providers">${providers.map(
    (provider) => html`<li><a href="${provider.path}?${back}">Sign in with ${provider.name}</a></li>`,
  )}</ul>`;
}
