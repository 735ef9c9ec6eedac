// Second factors' parameters, written once (docs/security.md, Second factors restates them).
export const FACTOR_RULES = {
  /** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30 s; a code from the step before or after is accepted. */
  totp: { algorithm: 'SHA1', digits: 6, period: 30, window: 1, secretBytes: 20 },
  /** Ten single-use recovery codes of 10 base32 characters (50 bits) each. */
  recoveryCodes: { count: 10, length: 10 },
  /** A second step (after the password, or a step-up) must follow within this; so must an app's first code after its key is shown. */
  pendingLifetimeMs: 10 * 60_000,
  /** A passkey ceremony's challenge lives this long, once. */
  challengeLifetimeMs: 5 * 60_000,
  /** Removing a factor or making new recovery codes needs a sign-in with a factor this recent. */
  freshSignInMs: 10 * 60_000,
  /** A reset password may remove the factors added in this many last days (their owner may not have added them). */
  recentFactorDays: 7,
  /**
   * Wrong second factors one account may give in a day (on top of the sign-in budget's 15 minutes):
   * guessing six digits at the 15-minute budget's pace would succeed about 3% of days.
   */
  wrongFactorsPerAccountPerDay: 30,
  /** Passkey sign-in options anyone may ask for (each stores a challenge for 5 minutes), per address per 15 minutes. */
  passkeyOptionsPerAddress: 60,
  /** Passkeys one account may register. */
  maxPasskeys: 20,
  maxPasskeyNameLength: 60,
  /** What the code fields take: an app's digits, or a recovery code with the spaces or dashes a person types. */
  maxTypedCodeLength: 20,
} as const;

/** The scripts the passkey pages load from /assets. */
export const ASSET_SCRIPTS = ['webauthn-browser.js', 'passkeys.js'] as const;
