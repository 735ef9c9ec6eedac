// Which clients get the FAPI 2.0 Security Profile's rules (docs/oauth.md, FAPI 2.0): those registered
// with `fapi_profile`. The rules themselves sit where each step is checked, each naming this.
import type { ClientDocument } from './clients.model';

export const isFapi = (client: Pick<ClientDocument, 'metadata'>): boolean => client.metadata?.fapi_profile !== undefined;
