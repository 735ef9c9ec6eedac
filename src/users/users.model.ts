import { Schema, model } from 'mongoose';
import shortid from 'shortid';
import type { StoredClaims } from './users.claims';
import { PROVIDER_NAMES, providerIdField, type ProviderIdField } from './users.providers';

/** Account ids at identity providers (github_id, ...): stable, unique, absent for other users. */
export type ProviderIds = Partial<Record<ProviderIdField, string>>;

export interface UserDocument extends ProviderIds {
  _id: string;
  /** Positive integer assigned at creation and never reused (the OAuth variant A `uid`). */
  uid: number;
  /** Absent only for users from an identity provider that gave no usable email. */
  email?: string;
  /** argon2id hash; absent for users who signed up through an identity provider. */
  password?: string;
  firstName?: string;
  lastName?: string;
  permissionFlags: number;
  /** Picture from the identity provider, refreshed at each sign-in. */
  avatarUrl?: string;
  /** The OpenID Connect claims the person shares beyond the fields above (users.claims.ts). */
  claims?: StoredClaims;
  /** Last change of the profile (OpenID Connect's updated_at); absent on records older than it. */
  updatedAt?: Date;
  /** When the password last changed: seed 000 access tokens issued before it no longer count. */
  credentialsChangedAt?: Date;
  /** The person proved they receive mail at `email` (a verification link, or GitHub's verified primary address). */
  emailVerified?: boolean;
  /** Set by an operator (npm run users -- disable): the account cannot sign in anywhere. */
  disabled?: boolean;
  /**
   * Whether the account may have a second factor (an app turned on, or a passkey): false means none,
   * so signing in needs no look at the factors; true or absent (older records) means look. Kept by
   * users.dao.ts changeSecondFactors under the record's lock.
   */
  secondFactor?: boolean;
  /** Which kinds the account has, kept with `secondFactor` (both true while a change is under way). */
  factorKinds?: { totp: boolean; passkeys: boolean };
  /** The roles an operator gave the person (roles/), `admin` among them; never derived from permissionFlags. */
  roles?: string[];
  /**
   * Applications the person revoked (/home's Revoke) and when: a token issued to one before then is
   * dead (tokens.service.ts), so revoking needs no search of the tokens. Kept while such a token could
   * still be unexpired.
   */
  revokedApps?: { clientId: string; at: Date }[];
  /** The first and last names in lower case, kept with them: what the console's search is an index range on. */
  nameKeys?: string[];
  __v: number;
}

const userSchema = new Schema<UserDocument>(
  {
    _id: { type: String, default: () => shortid.generate() },
    uid: { type: Number, required: true },
    email: { type: String, lowercase: true, trim: true },
    password: { type: String, select: false },
    firstName: { type: String },
    lastName: { type: String },
    permissionFlags: { type: Number, required: true, default: 1 },
    avatarUrl: { type: String },
    claims: { type: Schema.Types.Mixed },
    updatedAt: { type: Date, default: () => new Date() },
    credentialsChangedAt: { type: Date },
    emailVerified: { type: Boolean },
    disabled: { type: Boolean },
    secondFactor: { type: Boolean },
    factorKinds: { type: { _id: false, totp: Boolean, passkeys: Boolean }, default: undefined },
    roles: { type: [String], default: undefined },
    revokedApps: { type: [{ _id: false, clientId: String, at: Date }], default: undefined },
    nameKeys: { type: [String], default: undefined },
  },
  { collection: 'users', strict: true },
);

// unique + sparse lets many users lack the field: MongoDB leaves them out of a sparse index, and
// FerretDB (which ignores sparse) stores them as SQL NULLs, which a unique index lets repeat.
// Such fields are therefore never set to null, only left out.
userSchema.index({ email: 1 }, { unique: true, sparse: true });
for (const provider of PROVIDER_NAMES) {
  const field = providerIdField(provider);
  userSchema.add({ [field]: { type: String } });
  userSchema.index({ [field]: 1 }, { unique: true, sparse: true });
}
// Creation order for GET /users, and the lookup by uid.
userSchema.index({ uid: 1 }, { unique: true });
// The console's search by the start of a name (the email's is the email index's range).
userSchema.index({ nameKeys: 1 });

export const UserModel = model<UserDocument>('User', userSchema);

/**
 * A value a person is found by besides their id (`email:<address>`, `github_id:<id>`) as the `_id` of
 * a small record naming them: a lookup by email is two reads by `_id`, which every engine answers
 * without reading the collection (FerretDB 1.x reads the whole collection for any other filter). The
 * key is written before its user and removed after it, so a key may name nobody (a crash between the
 * two writes) but a user is never without their keys; users.dao.ts checks the user against the key.
 */
export interface UserKeyDocument {
  _id: string;
  userId: string;
  /** When the key was taken: one older than a minute whose user is not there is left over, and taken over. */
  createdAt: Date;
}

export const UserKeyModel = model<UserKeyDocument>(
  'UserKey',
  new Schema<UserKeyDocument>(
    { _id: { type: String, required: true }, userId: { type: String, required: true }, createdAt: { type: Date, required: true } },
    { collection: 'user_keys', versionKey: false },
  ),
);
