// The library's built-in refresh grant, which it does not export from its index.
declare module '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type' {
  import { AbstractGrantType, type Client, type RefreshToken, type Request, type Token, type User } from '@node-oauth/oauth2-server';

  class RefreshTokenGrantType extends AbstractGrantType {
    handle(request: Request, client: Client): Promise<Token>;
    getRefreshToken(request: Request, client: Client): Promise<RefreshToken>;
    revokeToken(token: RefreshToken): Promise<RefreshToken>;
    saveToken(user: User, client: Client, scope: string[] | undefined): Promise<Token>;
    getScope(request: Request, token?: RefreshToken): string[];
  }
  export = RefreshTokenGrantType;
}
