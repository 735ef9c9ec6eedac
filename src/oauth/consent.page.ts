// The consent page: which application asks for which scopes, with Approve and Deny.
import { html } from '../web/html';
import { csrfField, layout } from '../web/layout';
import type { RegisteredMetadata } from './clients/clients.model';
import { SCOPE_DEFINITIONS, type Scope } from './protocol';

const describe = (scope: string): string => (scope in SCOPE_DEFINITIONS ? SCOPE_DEFINITIONS[scope as Scope].consent : scope);

const hostOf = (address: string): string => {
  try {
    return new URL(address).host;
  } catch {
    return '';
  }
};

/**
 * A client known by its metadata document (client-documents.service.ts): anyone may publish one, so
 * the page says whose address names it; a client whose every redirect is this computer's own (a
 * loopback address) may be any program running here, which the person is told plainly.
 */
function documentNote(document: { host: string; loopbackOnly: boolean } | undefined) {
  if (!document) return '';
  return html`<p>This application describes itself at <strong>${document.host}</strong>; this server does not vouch for it.</p>${
    document.loopbackOnly
      ? html`<p class="error" role="alert">It answers only to a program on this computer (a loopback address), so any program here could claim to be it. Approve only if you started this application yourself just now.</p>`
      : ''
  }`;
}

function destinationNote(destination: { redirectUri: string } | 'device', website: string) {
  if (destination === 'device') {
    return html`<p>You are connecting a <strong>device</strong>, such as a TV or a command-line program, that showed you this code. Approve only if you started this on a device of your own just now.</p>`;
  }
  // A native app's private-use scheme has no host: the app itself receives the answer.
  const host = hostOf(destination.redirectUri) || destination.redirectUri.split(':')[0];
  const elsewhere = website !== '' && hostOf(website) !== host;
  return html`<p>Your answer goes to <strong>${host}</strong>${elsewhere ? html`, which is <strong>not</strong> the website above` : ''}.</p>`;
}

/** The registered logo, over https only (the pages' image policy), sending no referrer. */
function clientLogo(clientName: string, pages: RegisteredMetadata | undefined) {
  const logo = pages?.logo_uri;
  return logo?.startsWith('https://') ? html`<img class="logo" src="${logo}" alt="${clientName} logo" referrerpolicy="no-referrer">` : '';
}

function clientTerms(pages: RegisteredMetadata | undefined) {
  const links = [
    pages?.policy_uri && html`<a href="${pages.policy_uri}" rel="noopener noreferrer">privacy policy</a>`,
    pages?.tos_uri && html`<a href="${pages.tos_uri}" rel="noopener noreferrer">terms of service</a>`,
  ].filter((link) => link !== undefined && link !== '');
  if (links.length === 0) return '';
  return html`<p>Before you approve, read the application's ${links.length === 2 ? html`${links[0]} and ${links[1]}` : links[0]}.</p>`;
}

export function consentPage(options: {
  action: string;
  csrfToken: string;
  personName: string;
  /** The sign-in form, coming back here: to approve as someone else. */
  switchAccount: string;
  clientName: string;
  clientWebsite: string;
  /** The logo, privacy policy and terms of service the application registered. */
  clientPages?: RegisteredMetadata;
  scopes: string[];
  /** Single claims asked for beyond what the scopes release (the `claims` parameter). */
  claims?: string[];
  fields: Record<string, string>;
  /**
   * Where the decision goes: the redirect address the application registered (its host is shown, and
   * flagged when it is not the website's, RFC 7591 §5), or a device that showed the person a code (RFC 8628 §5.4).
   */
  destination: { redirectUri: string } | 'device';
  /** Present for a client known by its metadata document: the document's host, and whether its every redirect is a loopback one. */
  document?: { host: string; loopbackOnly: boolean };
}): string {
  return layout(
    `Authorize ${options.clientName}`,
    html`${clientLogo(options.clientName, options.clientPages)}<h1>Authorize ${options.clientName}?</h1>
<p><strong>${options.clientName}</strong>${options.clientWebsite ? html` (<a href="${options.clientWebsite}" rel="noopener noreferrer">${options.clientWebsite}</a>)` : ''} asks for access to your account:</p>
<ul>${options.scopes.map((scope) => html`<li><strong>${scope}</strong>: ${describe(scope)}</li>`)}${
      options.claims?.length ? html`<li><strong>also</strong>: ${options.claims.join(', ').replaceAll('_', ' ')}</li>` : ''
    }</ul>
${documentNote(options.document)}
${destinationNote(options.destination, options.clientWebsite)}
${clientTerms(options.clientPages)}
<p>Signed in as <strong>${options.personName}</strong>. <a href="${options.switchAccount}">Not you? Switch account</a></p>
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
