// The self-service pages: sign-up, the verification result, forgotten password and reset, and the
// account page (profile, email, password, signed-in browsers, applications, recent activity).
import { connectedApplications, type ConnectedApplicationView } from '../web/applications';
import { html, type SafeHtml } from '../web/html';
import { csrfField, layout } from '../web/layout';
import { PASSKEY_SCRIPTS, passkeyForm } from '../web/passkey-button';
import { providerLinks, type SignInProvider } from '../web/sign-in-providers';
import type { LinkedProviderView } from '../upstream/upstream.service';

import type { SessionSummary } from '../session/session.service';
import { ADDRESS_FIELDS, CLAIM_FIELDS, MAX_CLAIM_LENGTH, MAX_NAME_LENGTH } from '../users/sign-up.service';
import type { ActivityKind } from './activity.service';
import { LINK_LIFETIME_MS } from './account.rules';
import { MIN_PASSWORD_LENGTH } from '../common/validation';
import { readableAddress } from '../common/rate-limit';
import { FACTOR_RULES } from '../factors/factors.service';

const RESET_MINUTES = LINK_LIFETIME_MS['reset-password'] / 60_000;

/** The new-password input with its rule (POST /users's minimum), and what follows a change. */
function newPasswordInput(id: string, label: string, after = '') {
  return html`<label for="${id}">${label}</label>
<input id="${id}" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="${id}-rule">
<p id="${id}-rule" class="hint">At least ${MIN_PASSWORD_LENGTH} characters (the users API's own minimum); a few words make a stronger one.${after}</p>`;
}
import type { DeadLink } from './account-links.service';

type ClaimField = (typeof CLAIM_FIELDS)[number];
type AddressField = (typeof ADDRESS_FIELDS)[number];

/** Every claim the record keeps gets a label here (the compiler asks for a new one's). */
const CLAIM_LABELS: Record<ClaimField, string> = {
  middle_name: 'Middle name',
  nickname: 'Nickname',
  preferred_username: 'Preferred username',
  profile: 'Profile page (URL)',
  website: 'Website (URL)',
  gender: 'Gender',
  birthdate: 'Birthdate (YYYY-MM-DD)',
  zoneinfo: 'Time zone (such as Europe/Paris)',
  locale: 'Locale (such as en-US)',
  phone_number: 'Phone number (such as +15550100)',
};
const ADDRESS_LABELS: Record<AddressField, string> = {
  formatted: 'Full address as printed',
  street_address: 'Street',
  locality: 'City',
  region: 'Region',
  postal_code: 'Postal code',
  country: 'Country',
};

const problemsList = (problems: readonly string[]) =>
  problems.length === 0
    ? ''
    : html`<div class="error" role="alert"><p>Please correct:</p><ul>${problems.map((problem) => html`<li>${problem}</li>`)}</ul></div>`;

const problemLine = (problem: string | undefined) => (problem ? html`<p class="error" role="alert">${problem}</p>` : '');

function textInput(name: string, label: string, value: string, options: { type?: string; autocomplete?: string; max?: number } = {}) {
  return html`<label for="${name}">${label}</label>
<input id="${name}" name="${name}" type="${options.type ?? 'text'}" value="${value}" maxlength="${options.max ?? MAX_CLAIM_LENGTH}"${
    options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''
  }>`;
}

export interface SignUpView {
  csrfToken: string;
  /** GitHub and the upstream OpenID providers, offered beside the form. */
  providers: readonly SignInProvider[];
  values: { email: string; firstName: string; lastName: string };
  problems: readonly string[];
}

export function signUpPage(view: SignUpView): string {
  return layout(
    'Create an account',
    html`<h1>Create an account</h1>
${problemsList(view.problems)}
<form method="post" action="/signup">
${csrfField(view.csrfToken)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${view.values.email}">
${newPasswordInput('password', 'Password')}
${textInput('firstName', 'First name (optional)', view.values.firstName, { autocomplete: 'given-name', max: MAX_NAME_LENGTH })}
${textInput('lastName', 'Last name (optional)', view.values.lastName, { autocomplete: 'family-name', max: MAX_NAME_LENGTH })}
<div class="row"><button type="submit">Sign up</button></div>
</form>
${providerLinks(view.providers, '/home')}
<p>Already have an account? <a href="/login">Sign in</a></p>`,
  );
}

const DEAD_LINK: Record<DeadLink, { title: string; message: string }> = {
  invalid: {
    title: 'Link not valid',
    message: 'This link was already used, was replaced by a newer one, or is not complete. Nothing was changed.',
  },
  expired: { title: 'Link expired', message: 'This link has expired. Nothing was changed; ask for a new one.' },
};

/** A mailed link that cannot be used: what happened, and where to get a new one. */
export function deadLinkPage(dead: DeadLink, again: { href: string; label: string }): string {
  const { title, message } = DEAD_LINK[dead];
  return layout(title, html`<h1>${title}</h1><p>${message}</p><p><a href="${again.href}">${again.label}</a></p>`);
}

export function emailVerifiedPage(email: string, signedIn: boolean): string {
  return layout(
    'Email verified',
    html`<h1>Email verified</h1>
<p>Thank you: <strong>${email}</strong> is confirmed as your address.</p>
<p><a href="${signedIn ? '/account' : '/login'}">${signedIn ? 'Back to your account' : 'Sign in'}</a></p>`,
  );
}

export function forgotPasswordPage(view: { csrfToken: string; email: string; sent: boolean; problem?: string; mail: boolean }): string {
  if (!view.mail) {
    return layout(
      'Password reset unavailable',
      html`<h1>Password reset unavailable</h1><p>This server cannot send mail, so a password cannot be reset here. Please contact its operator.</p>`,
    );
  }
  return layout(
    'Forgot your password?',
    html`<h1>Forgot your password?</h1>
${
  view.sent
    ? html`<p role="status">If an account uses that address, a link to choose a new password is on its way. It works for ${RESET_MINUTES} minutes.</p>`
    : html`<p>Type the email address of your account and we will mail you a link to choose a new password.</p>`
}
${problemLine(view.problem)}
<form method="post" action="/forgot-password">
${csrfField(view.csrfToken)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${view.email}">
<div class="row"><button type="submit">Send link</button></div>
</form>
<p><a href="/login">Back to sign in</a></p>`,
  );
}

export function resetPasswordPage(view: { csrfToken: string; token: string; problem?: string }): string {
  return layout(
    'Choose a new password',
    html`<h1>Choose a new password</h1>
${problemLine(view.problem)}
<form method="post" action="/reset-password">
${csrfField(view.csrfToken)}
<input type="hidden" name="token" value="${view.token}">
${newPasswordInput('password', 'New password', ' Every other browser and application signed in to your account will be signed out.')}
<label class="check"><input type="checkbox" name="remove_recent_factors" value="1"> Also remove the second factors added in the last ${FACTOR_RULES.recentFactorDays} days (if someone else added them)</label>
<div class="row"><button type="submit">Set password</button></div>
</form>`,
  );
}

/** After a reset that removed recent factors: nobody is signed in; the person signs in anew. */
export function resetDonePage(removed: readonly string[]): string {
  return layout(
    'Password set',
    html`<h1>Password set</h1>
<p>Your new password is set, and every browser and application signed in to your account was signed out.</p>
<p>Removed, as you asked: ${removed.join(', ')}. We sent a note to your address.</p>
<p>Sign in with your new password (and any second factor you still have).</p>
<p><a href="/login?return_to=%2Faccount">Sign in</a></p>`,
  );
}

const ACTIVITY_WORDS: Record<ActivityKind, string> = {
  'signed-up': 'Account created',
  'signed-in': 'Signed in',
  'sign-in-failed': 'Failed sign-in attempt',
  'password-changed': 'Password changed',
  'password-reset-requested': 'Password reset link sent',
  'password-reset': 'Password reset',
  'email-verified': 'Email verified',
  'sessions-ended': 'Other browsers signed out',
  'factor-added': 'Second factor added',
  'factor-removed': 'Second factor removed',
  'recovery-codes-made': 'New recovery codes made',
  'verified-again': 'Confirmed with a second factor',
  'provider-linked': 'Sign-in provider linked',
  'provider-unlinked': 'Sign-in provider unlinked',
  'role-given': 'Role given',
  'role-taken': 'Role taken away',
  'role-defined': 'Role defined',
  'role-deleted': 'Role deleted',
  'resource-registered': 'API registered',
  'resource-deleted': 'API deleted',
  disabled: 'Account disabled by the operator',
  enabled: 'Account enabled by the operator',
  'application-revoked': "An application's access ended",
  deleted: 'Account deleted',
  unlocked: 'Sign-in unlocked by the operator',
  'application-registered': 'Application registered',
  'application-changed': 'Application changed',
  'application-secret-rotated': "Application's secret replaced",
  'application-deleted': 'Application deleted',
  'keys-rotated': 'Signing keys rotated',
  'document-host-ruled': "A host's application documents allowed or blocked",
  'exchange-policy-set': 'Token exchange rule set',
  'exchange-policy-deleted': 'Token exchange rule deleted',
  'token-exchanged': 'An application exchanged a token for you',
  'assertion-accepted': 'An application signed in for you with your company account',
};

/** Notices the account page shows after a form (the `done` query parameter). */
export const ACCOUNT_NOTICES = {
  profile: 'Your profile is saved.',
  password: 'Your password is changed. Every other browser and application was signed out.',
  reset: 'Your new password is set and you are signed in. Every other browser and application was signed out.',
  'reset-factors':
    'Your new password is set and you are signed in. Second factors someone else may have added are removed: add yours again below. Every other browser and application was signed out.',
  verification: 'A new verification link is on its way to your mailbox.',
  'provider-linked': 'The provider is linked: you can sign in with it from now on.',
  'provider-unlinked': 'The provider is unlinked: it no longer signs you in here.',
  'signed-up': 'Welcome! A link to confirm your email address is on its way to your mailbox.',
  'session-ended': 'That browser is signed out.',
  'sessions-ended': 'Every other browser is signed out.',
  totp: 'Your authenticator app is on: signing in now asks for its code after your password.',
  passkey: 'Your passkey is added: use it to sign in, or as the second step after your password.',
  'passkey-renamed': 'The passkey is renamed.',
  'totp-removed': 'The authenticator app is turned off.',
  'passkey-removed': 'The passkey is removed.',
} as const;
export type AccountNotice = keyof typeof ACCOUNT_NOTICES;

/** A passkey as the account page lists it. */
export interface PasskeyView {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt?: Date;
}

export interface AccountView {
  csrfToken: string;
  factors: { totp: boolean; passkeys: PasskeyView[]; recoveryLeft: number; recoveryMade: number; passkeyNameMax: number };
  notice?: AccountNotice;
  problem?: { form: 'profile' | 'password'; message: string };
  email?: string;
  /** An account made through a provider has none until a reset link sets one. */
  hasPassword: boolean;
  /** An operator (the admin role): the page links to the console. */
  operator: boolean;
  emailVerified: boolean;
  mail: boolean;
  profile: {
    firstName: string;
    lastName: string;
    picture: string;
    claims: Partial<Record<ClaimField, string>>;
    address: Partial<Record<AddressField, string>>;
  };
  sessions: { list: SessionSummary[]; page: number; more: boolean };
  applications: ConnectedApplicationView[];
  activity: { list: { kind: ActivityKind; at: Date; address: string; detail?: string }[]; page: number; more: boolean };
  /** The upstream OpenID providers, linked or not (none configured: no section). */
  providers: LinkedProviderView[];
}

function providersSection(view: AccountView): SafeHtml | '' {
  if (view.providers.length === 0) return '';
  return html`<h2>Sign-in providers</h2>
<ul class="apps">${view.providers.map(
    (
      provider,
    ) => html`<li><form method="post" action="/account/providers/${provider.id}/${provider.linked ? 'unlink' : 'link'}" class="row">
${csrfField(view.csrfToken)}
<span>${provider.name}: ${provider.linked ? html`linked${provider.email ? html` (${provider.email})` : ''}` : 'not linked'}</span>
<button type="submit" class="secondary" aria-label="${provider.linked ? 'Unlink' : 'Link'} ${provider.name}">${provider.linked ? 'Unlink' : 'Link'}</button>
</form></li>`,
  )}</ul>`;
}

const when = (date: Date) => html`<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;

function pager(param: string, page: number, more: boolean): SafeHtml | '' {
  if (page === 0 && !more) return '';
  return html`<p class="row">${page > 0 ? html`<a href="/account?${param}=${page - 1}">Newer</a>` : ''}${
    more ? html`<a href="/account?${param}=${page + 1}">Older</a>` : ''
  }</p>`;
}

function emailSection(view: AccountView) {
  if (!view.email) return html`<p>Your account has no email address.</p>`;
  if (view.emailVerified) return html`<p><strong>${view.email}</strong> (verified). The email address of an account cannot change.</p>`;
  return html`<p><strong>${view.email}</strong> (not verified yet). The email address of an account cannot change.</p>
${
  view.mail
    ? html`<form method="post" action="/account/verify-email">${csrfField(view.csrfToken)}<button type="submit" class="secondary">Send the verification link again</button></form>`
    : ''
}`;
}

function profileForm(view: AccountView) {
  const { profile } = view;
  return html`<form method="post" action="/account/profile">
${csrfField(view.csrfToken)}
${view.problem?.form === 'profile' ? problemLine(view.problem.message) : ''}
${textInput('firstName', 'First name', profile.firstName, { autocomplete: 'given-name', max: MAX_NAME_LENGTH })}
${textInput('lastName', 'Last name', profile.lastName, { autocomplete: 'family-name', max: MAX_NAME_LENGTH })}
${textInput('picture', 'Picture (URL)', profile.picture, { type: 'url', autocomplete: 'photo' })}
${CLAIM_FIELDS.map((field) => textInput(field, CLAIM_LABELS[field], profile.claims[field] ?? ''))}
<fieldset><legend>Address</legend>
${ADDRESS_FIELDS.map((field) => textInput(`address.${field}`, ADDRESS_LABELS[field], profile.address[field] ?? ''))}
</fieldset>
<div class="row"><button type="submit">Save profile</button></div>
</form>`;
}

function passwordForm(view: AccountView) {
  if (!view.hasPassword) {
    return html`<p>Your account has no password: you sign in another way (a provider, or a passkey).</p>${
      view.mail && view.email
        ? html`<p>To set one, <a href="/forgot-password">ask for a link</a> to ${view.email} and choose it there.</p>`
        : ''
    }`;
  }
  return html`<form method="post" action="/account/password">
${csrfField(view.csrfToken)}
${view.problem?.form === 'password' ? problemLine(view.problem.message) : ''}
<input type="text" name="username" value="${view.email ?? ''}" autocomplete="username" hidden>
<label for="currentPassword">Current password</label>
<input id="currentPassword" name="currentPassword" type="password" autocomplete="current-password" required>
${newPasswordInput('new-password', 'New password', ' Every other browser and application will be signed out.')}
<div class="row"><button type="submit">Change password</button></div>
</form>`;
}

function sessionsSection(view: AccountView) {
  const { list, page, more } = view.sessions;
  return html`<ul class="apps">${list.map(
    (session) => html`<li>
<h3>${session.device}${session.current ? ' (this browser)' : ''}</h3>
<p>From ${readableAddress(session.address)}. ${session.signedInAt ? html`Signed in ${when(session.signedInAt)}, l` : 'L'}ast seen ${when(session.lastSeenAt)}.</p>
${
  session.current
    ? ''
    : html`<form method="post" action="/account/sessions/${session.handle}/sign-out">${csrfField(view.csrfToken)}<button type="submit" class="secondary">Sign out</button></form>`
}
</li>`,
  )}</ul>
${pager('sessions_page', page, more)}
<form method="post" action="/account/sessions/sign-out-others">
${csrfField(view.csrfToken)}
<div class="row"><button type="submit" class="secondary">Sign out every other browser</button></div>
</form>`;
}

function factorsSection(view: AccountView) {
  const { totp, passkeys, recoveryLeft, recoveryMade, passkeyNameMax } = view.factors;
  const any = totp || passkeys.length > 0;
  return html`<p>${any ? 'Signing in asks for one of these after your password.' : 'Add one so that a password alone cannot sign in to your account.'}</p>
<h3>Authenticator app</h3>
${
  totp
    ? html`<p>On.</p><form method="post" action="/account/totp/remove">${csrfField(view.csrfToken)}<button type="submit" class="secondary">Turn off the authenticator app</button></form>`
    : html`<p><a href="/account/totp">Set up an authenticator app</a></p>`
}
<h3>Passkeys</h3>
${
  passkeys.length === 0
    ? html`<p>No passkey yet.</p>`
    : html`<ul class="apps">${passkeys.map(
        (passkey) => html`<li>
<p><strong>${passkey.name}</strong>: added ${when(passkey.createdAt)}${passkey.lastUsedAt ? html`, last used ${when(passkey.lastUsedAt)}` : ''}.</p>
<form method="post" action="/account/passkeys/${passkey.id}/rename" class="row">${csrfField(view.csrfToken)}<label for="rename-${passkey.id}" class="visually-hidden">New name for ${passkey.name}</label><input id="rename-${passkey.id}" name="name" type="text" maxlength="${passkeyNameMax}" value="${passkey.name}"><button type="submit" class="secondary">Rename</button></form>
<form method="post" action="/account/passkeys/${passkey.id}/remove">${csrfField(view.csrfToken)}<button type="submit" class="secondary">Remove</button></form>
</li>`,
      )}</ul>`
}
${passkeyForm({ csrfToken: view.csrfToken, kind: 'register', options: '/account/passkeys/options', verify: '/account/passkeys', label: 'Add a passkey', nameInput: passkeyNameMax, id: 'new-passkey' })}
${
  any
    ? html`<h3>Recovery codes</h3>
<p>${recoveryLeft} of ${recoveryMade} left. Each signs you in once without your app or passkey.</p>
<form method="post" action="/account/recovery-codes">${csrfField(view.csrfToken)}<button type="submit" class="secondary">Make new recovery codes</button></form>`
    : ''
}`;
}

function activitySection(view: AccountView) {
  const { list, page, more } = view.activity;
  if (list.length === 0 && page === 0) return html`<p>Nothing in the last 90 days.</p>`;
  return html`<ul class="apps">${list.map(
    (event) =>
      html`<li><p><strong>${ACTIVITY_WORDS[event.kind]}</strong>, ${when(event.at)}, from ${readableAddress(event.address)}${
        event.detail ? html` (${event.detail})` : ''
      }</p></li>`,
  )}</ul>
${pager('activity_page', page, more)}`;
}

export function accountPage(view: AccountView): string {
  return layout(
    'Your account',
    html`<h1>Your account</h1>
${view.notice ? html`<p class="notice" role="status">${ACCOUNT_NOTICES[view.notice]}</p>` : ''}
<h2>Email</h2>
${emailSection(view)}
<h2>Profile</h2>
<p>What applications you allow to read your profile receive. Leave a field empty to share nothing for it.</p>
${profileForm(view)}
<h2>Password</h2>
${passwordForm(view)}
<h2>Second factors</h2>
${factorsSection(view)}
${providersSection(view)}
<h2>Signed-in browsers</h2>
${sessionsSection(view)}
<h2>Connected applications</h2>
${connectedApplications(view.applications, view.csrfToken, '/account')}
<h2>Recent security activity</h2>
${activitySection(view)}
<p><a href="/home">Home</a> · <a href="/device">Connect a device</a>${view.operator ? html` · <a href="/admin">The operator’s console</a>` : ''}</p>
<form method="post" action="/logout">
${csrfField(view.csrfToken)}
<div class="row"><button type="submit" class="secondary">Sign out</button></div>
</form>
${PASSKEY_SCRIPTS}`,
    { wide: true },
  );
}
