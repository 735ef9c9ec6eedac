// What happens across features when an account or a client ends, wired once for every entry point
// (createApp and the commands): features never register with each other when imported.
import * as authService from './auth/auth.service';
import * as clientsService from './oauth/clients/clients.service';
import * as grantsService from './oauth/grants/grants.service';
import * as tokensService from './oauth/tokens/tokens.service';
import * as sessionService from './session/session.service';
import { credentialsChanged } from './sign-in/verified-credentials.cache';
import type * as usersService from './users/users.service';

export interface Lifecycle {
  /** A user was deleted or changed their password: everything issued to them ends, on every instance. */
  accessEnded: usersService.AccessEndedHook;
  /** A client was deleted: its tokens, codes and remembered consents end. */
  clientRemoved: clientsService.ClientRemovedHook;
}

export const lifecycle: Lifecycle = {
  async accessEnded(userId) {
    await Promise.all([
      tokensService.endForUser(userId),
      grantsService.forgetUser(userId),
      sessionService.signOutEverywhere(userId),
      authService.endForUser(userId),
    ]);
    // Raised after the change: every instance's cache of verified passwords empties.
    await credentialsChanged.raise();
  },
  async clientRemoved(clientId) {
    await Promise.all([tokensService.endForClient(clientId), grantsService.forgetClient(clientId)]);
  },
};
