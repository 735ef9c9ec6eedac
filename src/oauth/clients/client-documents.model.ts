// Client ID Metadata Documents (client-documents.ts): the clients known by a document that got a
// token here, for the operator's console, and the operator's rule for each document host.
import { Schema, model } from 'mongoose';

/** A client named by its metadata document's URL, recorded at its first token and seen again at later ones. */
export interface DocumentClientDocument {
  /** The client_id: the document's URL. */
  _id: string;
  host: string;
  /** client_name, as the document said when last seen. */
  name: string;
  firstSeen: Date;
  lastSeen: Date;
}

const documentClientSchema = new Schema<DocumentClientDocument>(
  {
    _id: { type: String, required: true },
    host: { type: String, required: true },
    name: { type: String, required: true },
    firstSeen: { type: Date, required: true },
    lastSeen: { type: Date, required: true },
  },
  { collection: 'document_clients', versionKey: false },
);

export const DocumentClientModel = model<DocumentClientDocument>('DocumentClient', documentClientSchema);

export const HOST_RULES = ['allow', 'block'] as const;
export type HostRule = (typeof HOST_RULES)[number];

/** The operator's rule for one host's documents (CLIENT_ID_DOCUMENTS says what hosts without one get). */
export interface DocumentHostDocument {
  /** The host, lower case, with its port when not 443. */
  _id: string;
  rule: HostRule;
  at: Date;
}

const documentHostSchema = new Schema<DocumentHostDocument>(
  {
    _id: { type: String, required: true },
    rule: { type: String, required: true, enum: HOST_RULES },
    at: { type: Date, required: true },
  },
  { collection: 'document_hosts', versionKey: false },
);

export const DocumentHostModel = model<DocumentHostDocument>('DocumentHost', documentHostSchema);
