import type { Strategy } from 'passport';
import type { Config } from '../config';
import type { ProviderAccount } from '../users/users.types';
import type { ProviderName } from '../users/users.providers';

/** Hands the provider's account to the application; the strategy calls it after fetching the profile. */
export type VerifyAccount = (account: ProviderAccount, done: (err: unknown, userId?: string | false) => void) => void;

/** One identity provider: a file in providers/ exporting this, listed in providers/index.ts. */
export interface SocialProvider {
  readonly name: ProviderName;
  /** Shown on pages, e.g. "GitHub". */
  readonly label: string;
  /** A passport strategy, or null when the provider's credentials are not configured. */
  createStrategy(config: Config, verify: VerifyAccount): Strategy | null;
  /** The variables that configure it and are missing (what its 503 page says outside production). */
  settings(config: Config): string[];
}
