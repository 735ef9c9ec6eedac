// The upstream feature's types that other features name: a link to a provider's account that waits
// for the person's password (the link page), kept in the session, which names it without importing upstream.

/** A sign-in through a provider waiting for the person to prove the account here that has its email. */
export interface PendingLink {
  provider: string;
  subject: string;
  email: string;
  userId: string;
  /** The provider's methods this server takes (`fed`, and its own when trusted). */
  amr: string[];
  returnTo: string;
  /** When it began (ms). */
  at: number;
}
