// The library's refresh grant, reordered so that a refused refresh changes nothing: the requested
// scope is checked before the old refresh token is rotated away (the library rotates first, so a
// wider scope burned the token and revoked its family). A token issued to another client is answered
// like an unknown one, so the answer does not confirm that the token exists.
import { InvalidGrantError, type Client, type RefreshToken, type Request, type Token } from '@node-oauth/oauth2-server';
import RefreshTokenGrantType from '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type';

export class CheckedRefreshGrant extends RefreshTokenGrantType {
  async handle(request: Request, client: Client): Promise<Token> {
    const token = await this.getRefreshToken(request, client);
    const scope = this.getScope(request, token);
    await this.revokeToken(token);
    return this.saveToken(token.user, client, scope);
  }

  async getRefreshToken(request: Request, client: Client): Promise<RefreshToken> {
    try {
      return await super.getRefreshToken(request, client);
    } catch (err) {
      if (err instanceof InvalidGrantError && /another client/.test(err.message))
        throw new InvalidGrantError('Invalid grant: refresh token is invalid');
      throw err;
    }
  }
}
