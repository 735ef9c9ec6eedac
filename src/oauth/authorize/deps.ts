// What the authorization endpoint's steps need of the server, made once by createAuthorizeService.
import type { Clock } from '../../common/clock';
import type { Config } from '../../config';
import type { Stores } from '../../stores';
import type { BackchannelLogout } from '../oidc/backchannel.service';
import type { IdTokens } from '../oidc/id-tokens.service';
import type { TokenIssuer } from '../tokens/issuing.service';
import type { AnswerContext } from './response-modes';

/** What the authorization endpoint signs: ID tokens, and JARM responses. */
export type AuthorizationSigner = Pick<IdTokens, 'sign' | 'signAuthorizationResponse'>;

export interface AuthorizeDeps {
  config: Config;
  idTokens: AuthorizationSigner;
  backchannel: Pick<BackchannelLogout, 'granted'>;
  /** Mints and records the implicit flow's access tokens. */
  issue: TokenIssuer;
  stores: Pick<Stores, 'clients' | 'clientKeySets' | 'consents' | 'resources'>;
  clock: Clock;
  /** How answers travel back (response-modes/): the issuer, and the JARM signer. */
  answering: AnswerContext;
}
