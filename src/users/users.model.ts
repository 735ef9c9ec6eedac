import { Schema, model } from 'mongoose';
import shortid from 'shortid';

export interface UserDocument {
  _id: string;
  /** Positive integer assigned at creation and never reused (the OAuth variant A `uid`). */
  uid: number;
  email: string;
  /** argon2id hash; absent for users who signed up through an identity provider. */
  password?: string;
  firstName?: string;
  lastName?: string;
  permissionFlags: number;
  __v: number;
}

const userSchema = new Schema<UserDocument>(
  {
    _id: { type: String, default: () => shortid.generate() },
    uid: { type: Number, required: true },
    email: { type: String, required: true, lowercase: true, trim: true },
    password: { type: String, select: false },
    firstName: { type: String },
    lastName: { type: String },
    permissionFlags: { type: Number, required: true, default: 1 },
  },
  { collection: 'users', strict: true },
);

userSchema.index({ email: 1 }, { unique: true });
// Creation order for GET /users, and the lookup by uid.
userSchema.index({ uid: 1 }, { unique: true });

export const UserModel = model<UserDocument>('User', userSchema);
