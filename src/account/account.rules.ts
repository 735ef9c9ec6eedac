// The account pages' limits, written once (docs/accounts.md restates them): the links the server
// mails, how often it mails them, and how much activity it keeps.
export const ACCOUNT_RULES = {
  /** An email verification link works for 24 hours, and only the newest one sent. */
  verifyLinkLifetimeMs: 24 * 3600_000,
  /** A password reset link works for 30 minutes, only the newest, and only until the password changes. */
  resetLinkLifetimeMs: 30 * 60_000,
  /** Verification mails one account may ask for again in 15 minutes. */
  verificationResendPerAccount: 3,
  /** Reset links one address may ask for in 15 minutes, and that may be sent to one email address. */
  resetRequestsPerAddress: 10,
  resetRequestsPerEmail: 3,
  /** Security activity is kept this long. */
  activityRetentionMs: 90 * 24 * 3600_000,
  /** Rows per page of the account page's lists (sessions, activity). */
  pageSize: 20,
} as const;

export type LinkPurpose = 'verify-email' | 'reset-password';

export const LINK_LIFETIME_MS: Record<LinkPurpose, number> = {
  'verify-email': ACCOUNT_RULES.verifyLinkLifetimeMs,
  'reset-password': ACCOUNT_RULES.resetLinkLifetimeMs,
};
