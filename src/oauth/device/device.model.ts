// Device authorizations (RFC 8628): a device code the device polls with, a short user code a person
// types on the verification page, and what the person decided.
import { Schema, model } from 'mongoose';

export interface DeviceAuthorizationDocument {
  /** Hash of the device code. */
  _id: string;
  /** Hash of the normalized user code. */
  userCodeHash: string;
  clientId: string;
  scope: string[];
  expiresAt: Date;
  /** Seconds the device must wait between polls; grows with each slow_down. */
  interval: number;
  lastPolledAt?: Date;
  status: 'pending' | 'approved' | 'denied';
  userId?: string;
  authTime?: Date;
  amr?: string[];
}

const deviceSchema = new Schema<DeviceAuthorizationDocument>(
  {
    _id: { type: String, required: true },
    userCodeHash: { type: String, required: true },
    clientId: { type: String, required: true },
    scope: { type: [String], required: true },
    expiresAt: { type: Date, required: true },
    interval: { type: Number, required: true },
    lastPolledAt: { type: Date },
    status: { type: String, required: true },
    userId: { type: String },
    authTime: { type: Date },
    amr: { type: [String], default: undefined },
  },
  { collection: 'oauth_device_authorizations', versionKey: false },
);
deviceSchema.index({ userCodeHash: 1 }, { unique: true });
deviceSchema.index({ expiresAt: 1 });

export const DeviceAuthorizationModel = model<DeviceAuthorizationDocument>('OAuthDeviceAuthorization', deviceSchema);

/**
 * A user code's key (issue 54): its hash as `_id`, naming the authorization it belongs to, so the
 * verification page finds the authorization by two `_id` reads, which every engine answers without
 * reading the collection. Written before the authorization, deleted with it.
 */
export interface DeviceUserCodeDocument {
  /** Hash of the normalized user code. */
  _id: string;
  /** The authorization's `_id` (the device code's hash). */
  deviceId: string;
  expiresAt: Date;
}

const userCodeSchema = new Schema<DeviceUserCodeDocument>(
  {
    _id: { type: String, required: true },
    deviceId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'oauth_device_user_codes', versionKey: false },
);
userCodeSchema.index({ expiresAt: 1 });

export const DeviceUserCodeModel = model<DeviceUserCodeDocument>('OAuthDeviceUserCode', userCodeSchema);
