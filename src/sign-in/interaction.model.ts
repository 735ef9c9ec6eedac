// A browser flow that is not finished (sign-in/interaction.ts): what is owed and what it resumes, or a
// consent page's request waiting for its decision. Never
// changed once written: each stage is a new record under a new id, so a sweep that deletes by `_id`
// after reading an expired one can never take a later one with it (docs/decisions.md, FerretDB).
import { Schema, model } from 'mongoose';
import type { PendingLink } from '../upstream/upstream.types';
import type { PendingStep } from './journey.types';

export interface InteractionDocument {
  /** Random, unguessable: the value of the browser's interaction cookie. */
  _id: string;
  /** A second factor owed, for a sign-in or a step-up (its held budget hits with it). */
  step?: PendingStep;
  /** A provider account waiting for its owner to prove the account here. */
  link?: PendingLink;
  /** An authorization request whose consent page is showing, for that page's decision, and the session it is for. */
  consent?: { parameters: Record<string, string>; userId: string; sid: string };
  /** Recovery codes a step-up's action made, for the next page to show once, and whose they are. */
  codes?: string[];
  owner?: string;
  expiresAt: Date;
}

const interactionSchema = new Schema<InteractionDocument>(
  {
    _id: { type: String, required: true },
    step: { type: Schema.Types.Mixed },
    link: { type: Schema.Types.Mixed },
    consent: { type: Schema.Types.Mixed },
    codes: { type: [String], default: undefined },
    owner: { type: String },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'interactions', versionKey: false },
);
interactionSchema.index({ expiresAt: 1 });

export const InteractionModel = model<InteractionDocument>('Interaction', interactionSchema);
