// The token endpoint's urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4), as a grant type
// of @node-oauth/oauth2-server: the library authenticates the client and checks that it may use it.
import { AbstractGrantType, InvalidRequestError, type Client, type Request, type Token } from '@node-oauth/oauth2-server';
import { saveToken, type OAuthUser } from '../oauth.storage';
import * as deviceService from './device.service';

export class DeviceCodeGrant extends AbstractGrantType {
  async handle(request: Request, client: Client): Promise<Token> {
    const deviceCode: unknown = (request.body as Record<string, unknown>).device_code;
    if (typeof deviceCode !== 'string' || deviceCode === '') throw new InvalidRequestError('Missing parameter: `device_code`');
    const { userId, authTime, scope } = await deviceService.redeem(deviceCode, client.id);
    const user: OAuthUser = { id: userId, authTime };
    const token: Token = {
      accessToken: await this.generateAccessToken(client, user, scope),
      accessTokenExpiresAt: this.getAccessTokenExpiresAt(),
      refreshToken: await this.generateRefreshToken(client, user, scope),
      refreshTokenExpiresAt: this.getRefreshTokenExpiresAt(),
      scope,
      client,
      user,
    };
    return saveToken(token, client, user);
  }
}
