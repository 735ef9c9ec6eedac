// Passkeys (WebAuthn) with @simplewebauthn/server: registered from the account page (discoverable,
// with user verification), used as the second step after a password or alone ("Sign in with a
// passkey"). The relying party id and origin come from PUBLIC_URL. Each ceremony's challenge is
// stored and taken once (a replayed response finds it gone); a signature counter that does not move
// forward is refused by the library.
import { Refusal } from '../common/refusals';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { throttled } from '../db/sweeper';
import { FACTOR_RULES } from './factors.rules';
import * as passkeysDao from './passkeys.dao';
import { changeFactors } from './second-factors.service';
import type { ChallengeDocument, PasskeyDocument } from './passkeys.model';

/** Loaded at the first ceremony: most processes never run one, and it is some 10 MB of memory. */
const webauthn = () => import('@simplewebauthn/server');
const encodings = () => import('@simplewebauthn/server/helpers');

/** Why a ceremony's answer was refused (the page or the JSON says it; nothing is stored). */
export class PasskeyRefused extends Refusal {
  constructor(message: string) {
    super('invalid', message);
  }
}

const NOT_AN_ANSWER = 'This is not a passkey answer.';
const COULD_NOT_CHECK = 'The passkey could not be checked. Try again, or sign in another way.';

/** The library's reason for refusing an answer, in a person's words (its own text is for developers). */
function refusalWords(err: unknown): string {
  const reason = err instanceof Error ? err.message : '';
  if (/counter/i.test(reason))
    return 'This passkey was refused: its use count went backwards, which happens when a passkey is copied. Sign in another way, and remove the passkey from your account if you do not know why.';
  if (/challenge/i.test(reason)) return 'This passkey request has expired or was used already. Try again.';
  if (/origin|RP ID|rpID/i.test(reason)) return 'This passkey belongs to another site.';
  if (/user verification|not verified|user presence/i.test(reason))
    return 'Your device did not confirm it is you (a fingerprint, face or PIN). Try again.';
  return COULD_NOT_CHECK;
}

/** The outline every WebAuthn answer has (the library checks the rest). */
function isCeremonyAnswer(value: unknown): value is { id: string; response: object } {
  const answer = value as { id?: unknown; response?: unknown } | null;
  return (
    typeof answer === 'object' &&
    answer !== null &&
    typeof answer.id === 'string' &&
    answer.id.length <= 1024 &&
    typeof answer.response === 'object' &&
    answer.response !== null
  );
}

const sweepChallenges = throttled(600_000, (now) => passkeysDao.deleteExpiredChallenges(now));

export interface PasskeyIdentity {
  userId: string;
  /** What the authenticator shows the person (their email, or their name). */
  userName: string;
}

export function createPasskeys(config: { publicUrl: string; rpName: string }) {
  const origin = new URL(config.publicUrl).origin;
  const rpID = new URL(config.publicUrl).hostname;

  async function newChallenge(purpose: ChallengeDocument['purpose'], challenge: string, userId?: string): Promise<void> {
    await passkeysDao.insertChallenge({
      _id: challenge,
      purpose,
      userId,
      expiresAt: new Date(Date.now() + FACTOR_RULES.challengeLifetimeMs),
    });
    sweepChallenges();
  }

  /** Checks that the response answers a live challenge of ours for this purpose and person, taking it. */
  function challengeTaker(purpose: ChallengeDocument['purpose'], userId: string | undefined) {
    return async (challenge: string): Promise<boolean> => {
      const taken = await passkeysDao.takeChallenge(challenge);
      return taken !== null && taken.purpose === purpose && taken.userId === userId && taken.expiresAt > new Date();
    };
  }

  const descriptor = (passkey: PasskeyDocument) => ({
    id: passkey._id,
    transports: passkey.transports as AuthenticatorTransport[] | undefined,
  });

  return {
    rpID,
    origin,

    async registrationOptions(person: PasskeyIdentity): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const existing = await passkeysDao.listFor(person.userId);
      if (existing.length >= FACTOR_RULES.maxPasskeys)
        throw new PasskeyRefused(`An account can have ${FACTOR_RULES.maxPasskeys} passkeys at most.`);
      const [{ generateRegistrationOptions }, { isoUint8Array }] = await Promise.all([webauthn(), encodings()]);
      const options = await generateRegistrationOptions({
        rpName: config.rpName,
        rpID,
        userName: person.userName,
        userID: isoUint8Array.fromUTF8String(person.userId),
        attestationType: 'none',
        excludeCredentials: existing.map(descriptor),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      await newChallenge('register', options.challenge, person.userId);
      return options;
    },

    /** Stores the new passkey under its name; refused when the response does not verify. */
    async register(userId: string, response: RegistrationResponseJSON, name: string): Promise<PasskeyDocument> {
      if (!isCeremonyAnswer(response)) throw new PasskeyRefused(NOT_AN_ANSWER);
      const [{ verifyRegistrationResponse }, { isoBase64URL }] = await Promise.all([webauthn(), encodings()]);
      const verification = await verifyRegistrationResponse({
        response,
        expectedChallenge: challengeTaker('register', userId),
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: true,
      }).catch((err: unknown) => {
        throw new PasskeyRefused(refusalWords(err));
      });
      if (!verification.verified) throw new PasskeyRefused(COULD_NOT_CHECK);
      const { credential, credentialDeviceType } = verification.registrationInfo;
      if (await passkeysDao.find(credential.id)) throw new PasskeyRefused('This passkey is registered already.');
      const passkey: PasskeyDocument = {
        _id: credential.id,
        userId,
        publicKey: isoBase64URL.fromBuffer(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports,
        deviceType: credentialDeviceType,
        name: name.trim().slice(0, FACTOR_RULES.maxPasskeyNameLength) || 'Passkey',
        createdAt: new Date(),
      };
      await changeFactors(userId, () => passkeysDao.insert(passkey));
      return passkey;
    },

    /** Options for a sign-in: the person's own passkeys (a second step), or any discoverable one (no userId). */
    async authenticationOptions(userId?: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const allowCredentials = userId ? (await passkeysDao.listFor(userId)).map(descriptor) : undefined;
      const { generateAuthenticationOptions } = await webauthn();
      const options = await generateAuthenticationOptions({ rpID, allowCredentials, userVerification: 'required' });
      await newChallenge('authenticate', options.challenge, userId);
      return options;
    },

    /**
     * Checks a sign-in answer: the passkey's owner and the amr it gives (`hwk` for a passkey bound to
     * its device, `swk` for a synced one). `userId`: the person of a second step, who must own it.
     */
    async authenticate(response: AuthenticationResponseJSON, userId?: string): Promise<{ userId: string; method: 'hwk' | 'swk' }> {
      if (!isCeremonyAnswer(response)) throw new PasskeyRefused(NOT_AN_ANSWER);
      const passkey = await passkeysDao.find(response.id);
      if (!passkey || (userId !== undefined && passkey.userId !== userId)) throw new PasskeyRefused('This passkey is not registered here.');
      const [{ verifyAuthenticationResponse }, { isoBase64URL }] = await Promise.all([webauthn(), encodings()]);
      const verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challengeTaker('authenticate', userId),
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential: {
          id: passkey._id,
          publicKey: isoBase64URL.toBuffer(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports,
        },
        requireUserVerification: true,
      }).catch((err: unknown) => {
        throw new PasskeyRefused(refusalWords(err));
      });
      if (!verification.verified) throw new PasskeyRefused(COULD_NOT_CHECK);
      await passkeysDao.recordUse(passkey._id, verification.authenticationInfo.newCounter);
      return { userId: passkey.userId, method: passkey.deviceType === 'multiDevice' ? 'swk' : 'hwk' };
    },

    list: (userId: string) => passkeysDao.listFor(userId),
    rename: (userId: string, id: string, name: string) =>
      passkeysDao.rename(userId, id, name.trim().slice(0, FACTOR_RULES.maxPasskeyNameLength) || 'Passkey'),
    remove: (userId: string, id: string) => passkeysDao.remove(userId, id),
  };
}

export type Passkeys = ReturnType<typeof createPasskeys>;
