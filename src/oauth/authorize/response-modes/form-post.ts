// response_mode=form_post (OAuth 2.0 Form Post Response Mode): a page that posts the values to the
// redirect URI (the controller renders it: authorize/form-post.page.ts).
import type { Carrier } from './mode';

export const formPost: Carrier = (redirectUri, entries) => ({
  kind: 'form_post',
  action: redirectUri,
  fields: Object.fromEntries(entries),
});
