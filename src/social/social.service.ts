// Application sign-in through an identity provider (seed 001): the provider's account id finds the
// user, or a new user is created; name and picture follow the provider at each sign-in.
import * as signUpService from '../users/sign-up.service';
import * as usersService from '../users/users.service';
import type { ProviderAccount } from '../users/users.types';
import type { ProviderName } from '../users/users.providers';

export async function userForAccount(provider: ProviderName, account: ProviderAccount): Promise<string> {
  const existing = await usersService.findIdByProviderAccount(provider, account.providerId);
  if (!existing) {
    // POST /users's email rule holds here too (one rule for every way an account is made, issue 48
    // finding 12): an address it would refuse is left out, as a taken one is.
    const acceptable = account.email !== undefined && (await signUpService.emailProblem(account.email)) === null;
    return usersService.createFromProvider(provider, { ...account, email: acceptable ? account.email : undefined });
  }
  await usersService.refreshFromProvider(existing, account);
  return existing;
}
