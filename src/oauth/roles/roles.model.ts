import { Schema, model } from 'mongoose';

/** A role an operator defined (docs/oauth.md, Roles); `admin` is built in and not stored. */
export interface RoleDocument {
  /** The role's name, as the `roles` claim carries it. */
  _id: string;
  description: string;
  createdAt: Date;
}

const roleSchema = new Schema<RoleDocument>(
  {
    _id: { type: String, required: true },
    description: { type: String, default: '' },
    createdAt: { type: Date, required: true },
  },
  { collection: 'roles', versionKey: false },
);

export const RoleModel = model<RoleDocument>('Role', roleSchema);
