// Application sign-in through an identity provider (seed 001): the provider's account id finds the
// user, or a new user is created; name and picture follow the provider at each sign-in.
import * as usersService from '../users/users.service';
import type { ProviderAccount } from '../users/users.types';
import type { ProviderName } from '../users/users.providers';

export async function userForAccount(provider: ProviderName, account: ProviderAccount): Promise<string> {
  const existing = await usersService.findIdByProviderAccount(provider, account.providerId);
  if (!existing) return usersService.createFromProvider(provider, account);
  await usersService.refreshFromProvider(existing, account);
  return existing;
}
