// The only importer of the client model; returns plain objects.
import { ClientModel, type ClientDocument } from './clients.model';

export async function insertClient(client: ClientDocument): Promise<void> {
  await ClientModel.create(client);
}

export function findClient(clientId: string): Promise<ClientDocument | null> {
  return ClientModel.findById(clientId).lean<ClientDocument>().exec();
}

export function listClientsOf(ownerId: string): Promise<ClientDocument[]> {
  return ClientModel.find({ ownerId }).sort({ createdAt: 1 }).lean<ClientDocument[]>().exec();
}

/** false when the owner has no such client. */
export async function deleteClient(clientId: string, ownerId: string): Promise<boolean> {
  const { deletedCount } = await ClientModel.deleteOne({ _id: clientId, ownerId }).exec();
  return deletedCount === 1;
}

export async function deleteById(clientId: string): Promise<void> {
  await ClientModel.deleteOne({ _id: clientId }).exec();
}
