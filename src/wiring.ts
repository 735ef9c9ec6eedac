// What happens across features when an account or a client ends, wired once for every entry point
// (createApp and the commands): features never register with each other when imported.
import * as clientsService from './oauth/clients/clients.service';
import * as exchangeService from './oauth/exchange/exchange.service';
import * as grantsService from './oauth/grants/grants.service';
import * as tokensService from './oauth/tokens/tokens.service';
import type { Logger } from 'pino';
import type { Config } from './config';
import { createBackchannelLogout, type BackchannelLogout } from './oauth/oidc/backchannel.service';
import { createIdTokens } from './oauth/oidc/id-tokens.service';
import { createKeyRing, keyRingOptions } from './oauth/oidc/signing-keys.service';
import type { SessionEndedHook } from './session/session.middleware';
import * as sessionService from './session/session.service';
import { credentialsChanged } from './sign-in/verified-credentials.cache';
import type * as usersService from './users/users.service';

export interface Lifecycle {
  /** A user was deleted or changed their password: everything issued to them ends, on every instance. */
  accessEnded: usersService.AccessEndedHook;
  /** A client was deleted: its tokens, codes, remembered consents and token exchange rules end. */
  clientRemoved: clientsService.ClientRemovedHook;
  /** A browser session ended (sign-out, RP-initiated logout): its applications hear by back-channel. */
  sessionEnded: SessionEndedHook;
  /** Back-channel logout: the authorization endpoint records which applications each session reached. */
  backchannel: BackchannelLogout;
}

/** Revokes what a deleted client held; needs nothing but the database (the commands use it as it is). */
export async function clientRemoved(clientId: string): Promise<void> {
  await Promise.all([tokensService.endForClient(clientId), grantsService.forgetClient(clientId), exchangeService.endForClient(clientId)]);
}

/** The hooks of one running app: its back-channel logout signs with the shared keys and logs to its logger. */
export function createLifecycle(config: Config, logger: Logger, clients: clientsService.ClientRegistry): Lifecycle {
  const backchannel = createBackchannelLogout(config, createIdTokens(createKeyRing(keyRingOptions(config.oauth)), config), logger, clients);
  return {
    async accessEnded(userId) {
      await Promise.all([
        tokensService.endForUser(userId),
        grantsService.forgetUser(userId),
        sessionService.signOutEverywhere(userId),
        backchannel.userEnded(userId),
      ]);
      // Raised after the change: every instance's cache of verified passwords empties.
      await credentialsChanged.raise();
    },
    clientRemoved,
    sessionEnded: (ended) => backchannel.sessionEnded(ended),
    backchannel,
  };
}
