// The identity providers behind GET /auth/:provider. A new provider is a file beside this one that
// exports a SocialProvider, its name in ../provider-names.ts, and a line here.
import type { SocialProvider } from '../social.types';
import { githubProvider } from './github.strategy';

export const SOCIAL_PROVIDERS: readonly SocialProvider[] = [githubProvider];
