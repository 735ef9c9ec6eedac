// Authenticator-app codes (RFC 6238) with otpauth: enrolment confirmed by a first code, a QR code
// made here (qrcode, inline SVG), the secret sealed with SIGNING_KEYS_SECRET, and each code accepted
// once: its time step is a single-use mark (common/rate-limit.ts `SingleUse`), written by a unique
// insert, so a replay (or the same code sent many times at once, to any instance) is refused. At
// sign-in the mark goes in the same command as the attempt's budget hits.
import { Secret, TOTP } from 'otpauth';
import { seal, unseal, type Sealed } from '../common/crypto';
import { useOnce, type SingleUse } from '../common/rate-limit';
import * as totpDao from './totp.dao';
import { changeFactors } from './second-factors.service';
import { FACTOR_RULES } from './factors.rules';
import type { Clock } from '../common/clock';

/** Loaded when a person first sets up an authenticator app. */
const qrCodes = async () => (await import('qrcode')).default;

const { algorithm, digits, period, window, secretBytes } = FACTOR_RULES.totp;
const PURPOSE = 'totp-secret';

export interface Enrolment {
  /** The secret in base32, for typing into an app by hand. */
  secret: string;
  /** The otpauth:// URI as an inline SVG QR code. */
  qrSvg: string;
}

export function createTotp(config: { issuer: string; sealingSecret: string; clock: Clock }) {
  const { clock } = config;
  const totpOf = (secretBase32: string, label: string) =>
    new TOTP({ issuer: config.issuer, label, algorithm, digits, period, secret: Secret.fromBase32(secretBase32) });

  /** A key waiting for its first code is kept for FACTOR_RULES.pendingLifetimeMs after it was shown. */
  const waiting = (stored: { confirmedAt?: Date; createdAt: Date }) =>
    !stored.confirmedAt && clock.now() - stored.createdAt.getTime() < FACTOR_RULES.pendingLifetimeMs;

  /** The stored key (on, or waiting) in base32 and as sealed, or null. */
  async function keyOf(userId: string, confirmed: boolean): Promise<{ secret: string; sealed: Sealed } | null> {
    const stored = await totpDao.find(userId);
    if (!stored || (confirmed ? !stored.confirmedAt : !waiting(stored))) return null;
    const secret = unseal(stored.secret, config.sealingSecret, PURPOSE);
    return secret === null ? null : { secret, sealed: stored.secret };
  }
  const secretOf = async (userId: string, confirmed: boolean) => (await keyOf(userId, confirmed))?.secret ?? null;

  const enrolment = async (secret: string, label: string): Promise<Enrolment> => ({
    secret,
    qrSvg: await (await qrCodes()).toString(totpOf(secret, label).toString(), { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }),
  });

  /** The code's single-use mark when it is right for this secret now (used or not), else null. */
  function matching(userId: string, secretBase32: string, code: string): SingleUse | null {
    if (!new RegExp(`^\\d{${digits}}$`).test(code)) return null;
    const now = clock.now();
    const delta = totpOf(secretBase32, '').validate({ token: code, timestamp: now, window });
    if (delta === null) return null;
    const step = Math.floor(now / 1000 / period) + delta;
    // Kept until no window can accept the step again.
    return { id: `totp:${userId}:${step}`, expiresAt: new Date((step + window + 2) * period * 1000) };
  }

  return {
    /** Whether the account has an authenticator app turned on. */
    async enabled(userId: string): Promise<boolean> {
      return Boolean((await totpDao.find(userId))?.confirmedAt);
    },

    /**
     * Enrolment: the key shown before while it waits for its first code (a reload must not make the
     * scanned key useless), else a new one. Null when an app is on already.
     */
    async begin(userId: string, label: string): Promise<Enrolment | null> {
      const kept = await secretOf(userId, false);
      if (kept) return enrolment(kept, label);
      const secret = new Secret({ size: secretBytes }).base32;
      if (!(await totpDao.replacePending(userId, seal(secret, config.sealingSecret, PURPOSE), new Date(clock.now())))) return null;
      return enrolment(secret, label);
    },

    /** The waiting key shown again (a wrong first code), or null when none waits. */
    async pending(userId: string, label: string): Promise<Enrolment | null> {
      const secret = await secretOf(userId, false);
      return secret ? enrolment(secret, label) : null;
    },

    /** The first code turns the app on; false when it is wrong or used (or there is no enrolment, or a new one replaced it). */
    async confirm(userId: string, code: string): Promise<boolean> {
      const key = await keyOf(userId, false);
      const mark = key && matching(userId, key.secret, code);
      if (!mark || !(await useOnce([mark], new Date(clock.now())))[0]) return false;
      // The key the code was checked against, unless a new enrolment replaced it meanwhile.
      return changeFactors(userId, () => totpDao.confirm(userId, key.sealed, new Date(clock.now())));
    },

    /**
     * A code at sign-in, right and in its window: its single-use mark, for the sign-in to write with the
     * attempt's budget (a mark found written means the code was used). Null when it is wrong.
     */
    async match(userId: string, code: string): Promise<SingleUse | null> {
      const secret = await secretOf(userId, true);
      return secret === null ? null : matching(userId, secret, code);
    },

    remove: (userId: string): Promise<boolean> => totpDao.remove(userId),
  };
}

export type Totp = ReturnType<typeof createTotp>;
