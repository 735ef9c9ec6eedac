// The words of the mails the account pages send. Links are absolute URLs under PUBLIC_URL.
import type { Mail } from '../mail/mailer';

const hours = (ms: number) => ms / 3600_000;
const minutes = (ms: number) => ms / 60_000;

export function verificationMail(to: string, name: string, link: string, lifetimeMs: number, site: string): Mail {
  return {
    to,
    subject: 'Confirm your email address',
    text: `Hello ${name},

To confirm that ${to} is your address, open this link within ${hours(lifetimeMs)} hours:

${link}

If you did not sign up at ${site}, you can ignore this message.
`,
  };
}

export function resetMail(to: string, link: string, lifetimeMs: number, site: string): Mail {
  return {
    to,
    subject: 'Reset your password',
    text: `Hello,

Someone asked to reset the password of the account ${to} at ${site}. To choose a new password, open this link within ${minutes(lifetimeMs)} minutes:

${link}

If it was not you, ignore this message: your password stays as it is.
`,
  };
}

/** A second factor was added to or removed from the account: the owner hears of it, wherever it came from. */
export function factorChangeMail(
  to: string,
  change: { added: boolean; what: string; at: Date; from: string },
  recentDays: number,
  site: string,
): Mail {
  const when = change.at.toISOString().replace('T', ' ').slice(0, 16);
  return {
    to,
    subject: change.added ? 'A second factor was added to your account' : 'A second factor was removed from your account',
    text: `Hello,

${change.added ? 'A second factor was added to' : 'A second factor was removed from'} the account ${to} at ${site}: ${change.what}, on ${when} UTC, from ${change.from}.

If this was you, there is nothing to do. If it was not, someone knows your password: choose a new one with "Forgot your password?" on the sign-in page. The new password signs every browser out, and you can remove the second factors added in the last ${recentDays} days at the same time.
`,
  };
}

/** Wrong second factors stopped the sign-ins to the account for now: whoever tries has its password. */
export function factorGuessingMail(to: string, site: string): Mail {
  return {
    to,
    subject: 'Someone is trying to sign in to your account',
    text: `Hello,

Someone gave your password for the account ${to} at ${site}, then wrong codes for its second factor, so often that signing in with a second factor is paused for a while.

If this was not you, someone knows your password: choose a new one with "Forgot your password?" on the sign-in page. It signs every browser out.
`,
  };
}
