// Where the sign-in pages send a browser, and why the step-up page asks: what the interaction
// (interaction.ts) and the authorization endpoint share, without HTTP.
import type { PendingStep } from './journey.types';

/** Why the step-up page asks, in the person's words, and where Cancel leads. */
export function stepUpReason(pending: Pick<PendingStep, 'kind' | 'action' | 'returnTo'>): { why: string; cancel: string } | null {
  if (pending.kind !== 'step-up') return null;
  switch (pending.action?.name) {
    case 'remove-totp':
      return { why: 'To turn off the authenticator app, confirm it is you with your second factor.', cancel: '/account' };
    case 'remove-passkey':
      return { why: 'To remove a passkey, confirm it is you with your second factor.', cancel: '/account' };
    case 'new-recovery-codes':
      return { why: 'To make new recovery codes, confirm it is you with your second factor.', cancel: '/account' };
    default:
      return pending.returnTo.startsWith('/admin')
        ? { why: 'The operator’s console asks for your second factor again every 10 minutes.', cancel: '/home' }
        : { why: 'The application you are signing in to asks for your second factor.', cancel: '/home' };
  }
}

/** Where a sign-in is asked for: /login, coming back to `returnTo` (GET) afterwards. */
export function signInLocation(returnTo: string, options: { loginHint?: string; again?: boolean } = {}): string {
  const login = new URLSearchParams({ return_to: returnTo });
  if (options.loginHint) login.set('login_hint', options.loginHint);
  // A person already signed in is shown the form again all the same.
  if (options.again) login.set('prompt', 'login');
  return `/login?${login.toString()}`;
}

/** Where a signed-in person is asked for the second factor before going back to `returnTo`. */
export const stepUpLocation = (returnTo: string): string => `/login/step-up?${new URLSearchParams({ return_to: returnTo }).toString()}`;
