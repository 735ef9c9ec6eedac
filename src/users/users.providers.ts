// The identity providers users can sign in with. Each name gets a `<name>_id` column on users and a
// strategy file in providers/. Kept free of imports so the user model can read it.
export const PROVIDER_NAMES = ['github'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export type ProviderIdField = `${ProviderName}_id`;

export const providerIdField = (provider: ProviderName): ProviderIdField => `${provider}_id`;
