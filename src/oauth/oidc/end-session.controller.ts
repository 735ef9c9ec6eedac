// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) at end_session_endpoint. A valid
// id_token_hint for the signed-in person signs out at once; otherwise the person confirms with a form.
// A post_logout_redirect_uri is followed only with an id_token_hint whose client registered it, with
// `state` echoed.
import type { Request, Response } from 'express';
import { noStore } from '../../common/no-store';
import { sessionPerson, signOut, type SessionEndedHook } from '../../session/session.middleware';
import type { Csrf } from '../../web/csrf';
import { pageError } from '../../web/layout';
import * as clientsService from '../clients/clients.service';
import { collectParameters, type OAuthParameters } from '../oauth.parameters';
import { confirmSignOutPage, signedOutPage } from './end-session.page';
import type { IdTokens } from './id-tokens.service';
import { HTML_CONTENT_TYPE as HTML } from '../../web/html';

const refused = (message: string) => pageError(400, 'Invalid sign-out request', message);

/** The request's parameters; a bad one is a refusal the pages' presenter words. */
const readParameters = (req: Request): OAuthParameters => collectParameters(req, [req.method === 'POST' ? 'body' : 'query']);

export function createEndSessionController(
  idTokens: IdTokens,
  csrf: Csrf,
  sessionEnded: SessionEndedHook,
  clients: clientsService.ClientRegistry,
) {
  /** Where to send the browser afterwards: a registered post_logout_redirect_uri with state, or nowhere. */
  async function destination(parameters: OAuthParameters, hintClient: string | undefined): Promise<string | null> {
    if (parameters.client_id && hintClient && parameters.client_id !== hintClient)
      throw refused('client_id is not the audience of id_token_hint.');
    const requested = parameters.post_logout_redirect_uri;
    if (!requested) return null;
    // RP-Initiated Logout §2: without an id_token_hint nothing confirms that the address is the
    // client's wish (anyone can name a client_id), so there is no redirect: the signed-out page it is.
    if (!hintClient) return null;
    const client = await clients.find(hintClient);
    const registered = client && clientsService.registeredPostLogoutRedirectUri(client, requested);
    if (!registered) throw refused('The application asked to send you to an address it has not registered, so you were not sent there.');
    const url = new URL(registered);
    if (parameters.state) url.searchParams.set('state', parameters.state);
    return url.toString();
  }

  return {
    async endSession(req: Request, res: Response): Promise<void> {
      const parameters = readParameters(req);
      // The confirmation form's button says yes; nothing else confirms (or is asked again).
      if (parameters.confirm !== undefined && parameters.confirm !== 'yes') throw refused('confirm, when sent, must be yes.');
      const hint = parameters.id_token_hint ? await idTokens.verifyHint(parameters.id_token_hint) : null;
      if (parameters.id_token_hint && !hint) throw refused('The id_token_hint was not issued by this server.');
      const hintClient = Array.isArray(hint?.aud) ? hint.aud[0] : hint?.aud;
      const next = await destination(parameters, hintClient);
      const person = await sessionPerson(req);
      const confirmed = (hint !== null && hint.sub === person?._id) || (req.method === 'POST' && parameters.confirm === 'yes');
      if (person && !confirmed) {
        const { _csrf: _token, confirm: _confirm, ...fields } = parameters;
        noStore(res)
          .type(HTML)
          .send(confirmSignOutPage({ action: req.baseUrl + req.path, csrfToken: csrf.token(req, res), fields }));
        return;
      }
      const ended = person ? await signOut(req) : null;
      if (ended) await sessionEnded(ended);
      if (next) return res.redirect(303, next);
      noStore(res).type(HTML).send(signedOutPage());
    },
  };
}
