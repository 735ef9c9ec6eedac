// Signing keys for ID tokens and signed userinfo: one current key per algorithm (RSA 2048 for RS256,
// P-256 for ES256), stored in MongoDB so that every instance signs with the same keys and publishes
// the same set. The private key is encrypted with AES-256-GCM under a key
// derived from SIGNING_KEYS_SECRET. Instances re-read the set every OIDC_KEYS_REFRESH_SECONDS (30 by
// default, 60 at most), so a rotation made by `npm run keys -- rotate` is picked up within that time;
// the retired key stays published until every ID token it signed has expired.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { systemClock, type Clock } from '../../common/clock';
import { randomToken, seal, unseal } from '../../common/crypto';
import { staticDocument, type StaticDocument } from '../../common/static-document';
import type { Config } from '../../config';
import { DEFAULT_SIGNING_ALGORITHM, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../protocol';
import * as signingKeysDao from './signing-keys.dao';
import type { EncryptedPrivateKey, SigningKeyDocument } from './signing-keys.model';

export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  privateKey: KeyObject;
}

const newKeyPair = (alg: SigningAlgorithm) =>
  alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });

export interface KeyRingOptions {
  secret: string;
  /** Seconds an ID token lives: how long a retired key must stay published. */
  idTokenLifetime: number;
  /** Seconds between two reads of the key set by one process. */
  refresh: number;
}

export const keyRingOptions = (oauth: Config['oauth']): KeyRingOptions => ({
  secret: oauth.signingKeysSecret,
  idTokenLifetime: oauth.idTokenLifetime,
  refresh: oauth.signingKeysRefresh,
});

// The HKDF purpose the private keys are sealed under (docs/decisions.md: keys).
const PURPOSE = 'oidc-signing-keys';

/** The private key, or null when it was encrypted under another secret. */
function decrypt(encrypted: EncryptedPrivateKey, secret: string): KeyObject | null {
  const pem = unseal(encrypted, secret, PURPOSE);
  return pem === null ? null : createPrivateKey(pem);
}

/** How long after its retirement a key must stay published. */
function publishWindowMs(options: KeyRingOptions): number {
  // An instance may sign with a key for up to one refresh after it was retired; 60 s is the longest
  // refresh any instance may be configured with.
  return (options.idTokenLifetime + 2 * 60) * 1000;
}

/** SIGNING_KEYS_SECRET is not the one the published keys were stored with. */
export class ForeignSecretError extends Error {
  constructor() {
    super("SIGNING_KEYS_SECRET is not the one the current signing key was stored with: set it to the servers' value.");
  }
}

/**
 * Makes a new key current for every algorithm; the others retire. Returns the new key ids. `npm run keys` refuses
 * (writing nothing) under a secret the current key does not open, since servers could not read the
 * new key; a server whose secret changed (`replaceForeign`) makes a key it can use.
 */
export async function rotate(options: KeyRingOptions, replaceForeign = false): Promise<string[]> {
  const current = (await signingKeysDao.listPublished(new Date())).find((key) => !key.retiredAt);
  if (!replaceForeign && current && !decrypt(current.privateKey, options.secret)) throw new ForeignSecretError();
  const now = new Date();
  const kids = await Promise.all(
    SIGNING_ALGORITHMS.map(async (alg) => {
      const { privateKey, publicKey } = newKeyPair(alg);
      const kid = randomToken(12);
      await signingKeysDao.insert({
        _id: kid,
        alg,
        publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' },
        privateKey: seal(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), options.secret, PURPOSE),
        createdAt: now,
      });
      return kid;
    }),
  );
  await signingKeysDao.retireAllBut(kids, now, new Date(now.getTime() + publishWindowMs(options)));
  return kids;
}

export function listPublished(): Promise<SigningKeyDocument[]> {
  return signingKeysDao.listPublished(new Date());
}

interface LoadedKeys {
  at: number;
  keys: SigningKeyDocument[];
  /** The current key of each algorithm; one missing (or unreadable under this secret) is made anew. */
  signing: Partial<Record<SigningAlgorithm, SigningKey>>;
  /** The published keys as a JWK Set response, made on first use. */
  document?: StaticDocument;
}

/** The published keys of one process, read again at most every `refresh` seconds of `clock`. */
export function createKeyRing(options: KeyRingOptions, clock: Clock = systemClock) {
  let loaded: LoadedKeys | null = null;
  let loading: Promise<LoadedKeys> | null = null;

  async function load(): Promise<LoadedKeys> {
    const now = Date.now();
    await signingKeysDao.deleteExpired(new Date(now));
    const keys = await signingKeysDao.listPublished(new Date(now));
    const signing: LoadedKeys['signing'] = {};
    for (const alg of SIGNING_ALGORITHMS) {
      const current = keys.find((key) => !key.retiredAt && key.alg === alg);
      const privateKey = current ? decrypt(current.privateKey, options.secret) : null;
      if (current && privateKey) signing[alg] = { kid: current._id, alg, privateKey };
    }
    return { at: clock.now(), keys, signing };
  }

  async function fresh(): Promise<LoadedKeys> {
    if (loaded && clock.now() - loaded.at < options.refresh * 1000) return loaded;
    loading ??= load().finally(() => (loading = null));
    loaded = await loading;
    return loaded;
  }

  // One rotation at a time in this process: the requests that find no usable key while one is being
  // made wait for it, rather than each making (and retiring) another, which would publish a key
  // per request for the whole publishing window.
  let rotation: Promise<void> | null = null;
  let rotations = 0;

  /** The key to sign with; the first call ever (or after a secret change, or for a new algorithm) creates the keys. */
  async function signingKey(alg: SigningAlgorithm = DEFAULT_SIGNING_ALGORITHM): Promise<SigningKey> {
    const rotationsBefore = rotations;
    const found = (await fresh()).signing[alg];
    if (found) return found;
    // A rotation that ended while this one read the keys already made what it lacks.
    if (rotations === rotationsBefore) {
      rotation ??= rotate(options, true)
        .then(() => {
          rotations++;
          loaded = null;
        })
        .finally(() => (rotation = null));
    }
    await rotation;
    const created = (await fresh()).signing[alg];
    if (!created) throw new Error(`no usable ${alg} signing key after creating one`);
    return created;
  }

  return {
    signingKey,

    /**
     * The JWK Set to publish, as a response made once per loading of the keys; never empty: on a fresh
     * database the current key is made here, so a client that reads the keys before the first ID
     * token can verify it (OIDC Discovery §3).
     */
    async jwksDocument(): Promise<StaticDocument> {
      const loadedNow = await fresh();
      if (loadedNow.document) return loadedNow.document;
      for (const alg of SIGNING_ALGORITHMS) await signingKey(alg);
      const current = await fresh();
      current.document ??= staticDocument(
        { keys: current.keys.map((key) => key.publicJwk) },
        // Short enough that a rotation reaches clients that cache it.
        { 'Cache-Control': 'public, max-age=60' },
      );
      return current.document;
    },

    /** The public key for a `kid` and its algorithm, for checking ID tokens this server signed. */
    async publicKey(kid: string): Promise<{ alg: SigningAlgorithm; key: KeyObject } | null> {
      const found = (await fresh()).keys.find((candidate) => candidate._id === kid);
      return found ? { alg: found.alg, key: createPublicKey({ key: found.publicJwk as JsonWebKeyInput['key'], format: 'jwk' }) } : null;
    },
  };
}

type JsonWebKeyInput = Extract<Parameters<typeof createPublicKey>[0], { format: 'jwk' }>;

export type KeyRing = ReturnType<typeof createKeyRing>;
