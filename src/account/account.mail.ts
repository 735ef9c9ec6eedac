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
